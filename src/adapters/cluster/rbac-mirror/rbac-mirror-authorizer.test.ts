// The mirror in front of SubjectAccessReview: the mirror's allow is final and asks nothing more;
// anything else is the fallback's answer, exactly (decision, reason, error), marked as its, given
// the caller's signal.
import { describe, expect, it } from 'vitest';
import type { AuthorizationAttributes, AuthorizationResult, Authorizer } from '../../../ports/authorizer.ts';
import type { MirrorVerdict } from './rbac-mirror.ts';
import { mirrorFirst } from './rbac-mirror-authorizer.ts';

const question: AuthorizationAttributes = {
  user: { username: 'alice', groups: ['devs'] },
  resourceAttributes: { verb: 'update', namespace: 'team', group: 'apps', resource: 'replicasets', subresource: 'finalizers', name: 'web' },
};
const allowed = {
  allowed: {
    decision: 'allow',
    reason: 'RBAC: allowed by RoleBinding "a/team" of ClusterRole "edit" to User "alice"',
    answeredBy: 'rbac-mirror',
  },
} as const;
const denied: AuthorizationResult = { decision: 'deny', reason: 'webhook says no', error: 'evaluation failed' };

function fallback(answer: AuthorizationResult) {
  const asked: Array<{ attributes: AuthorizationAttributes; signal: AbortSignal | undefined }> = [];
  const authorizer: Authorizer = {
    async authorize(attributes, signal) {
      asked.push({ attributes, signal });
      return answer;
    },
  };
  return { authorizer, asked };
}

describe('mirrorFirst', () => {
  it('an allow from the mirror is the answer: the fallback is not asked', async () => {
    const outcomes: string[] = [];
    const { authorizer, asked } = fallback(denied);
    const composed = mirrorFirst({ evaluate: () => allowed }, authorizer, { question: (o) => outcomes.push(o) });
    expect(await composed.authorize(question)).toBe(allowed.allowed);
    expect(asked).toEqual([]);
    expect(outcomes).toEqual(['allowed']);
  });

  it.each<MirrorVerdict & string>(['not-allowed', 'not-synced'])(
    "%s: the fallback answers, word for word, with the caller's signal",
    async (verdict) => {
      const outcomes: string[] = [];
      const { authorizer, asked } = fallback(denied);
      const composed = mirrorFirst({ evaluate: () => verdict }, authorizer, { question: (o) => outcomes.push(o) });
      const signal = new AbortController().signal;
      expect(await composed.authorize(question, signal)).toEqual({ ...denied, answeredBy: 'subjectaccessreview' });
      expect(asked).toEqual([{ attributes: question, signal }]);
      expect(outcomes).toEqual([verdict]);
    },
  );

  it('a fallback that rejects rejects the question (callers fail closed on it)', async () => {
    const composed = mirrorFirst(
      { evaluate: () => 'not-allowed' },
      { authorize: () => Promise.reject(new Error('API server unreachable')) },
    );
    await expect(composed.authorize(question)).rejects.toThrow('API server unreachable');
  });
});
