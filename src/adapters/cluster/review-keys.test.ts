import { describe, expect, it } from 'vitest';
import type { UserInfo } from '../../api/types.ts';
import type { AuthorizationAttributes, ResourceAttributes } from '../../ports/authorizer.ts';
import { subjectAccessReviewSpec } from './authorizer.ts';
import { ReviewKeys } from './review-keys.ts';

// Questions that differ in one field each, and pairs the spec cannot tell apart (an empty field
// and an absent one). The key must be equal exactly when the specs sent would be equal.
const users: UserInfo[] = [
  { username: 'alice', uid: 'u1', groups: ['dev', 'system:authenticated'] },
  { username: 'alice', uid: 'u1', groups: ['system:authenticated', 'dev'] },
  { username: 'alice', uid: 'u2', groups: ['dev', 'system:authenticated'] },
  { username: 'alice', uid: 'u1', groups: ['dev'] },
  { username: 'alice', uid: 'u1', groups: ['dev', 'system:authenticated'], extra: { scopes: ['a'] } },
  { username: 'alice', uid: 'u1', groups: ['dev', 'system:authenticated'], extra: { scopes: ['a', 'b'] } },
  { username: 'alice', uid: 'u1', groups: ['dev', 'system:authenticated'], extra: { 'scopes.b': ['a'], scopes: ['b'] } },
  { username: 'alice', uid: 'u1', groups: ['dev', 'system:authenticated'], extra: { scopes: ['b'], 'scopes.b': ['a'] } },
  { username: 'alice', uid: 'u1', groups: ['dev', 'system:authenticated'], extra: {} },
  { username: 'alice', uid: 'u1', groups: [] },
  { username: 'alice', uid: 'u1' },
  { username: 'alice', uid: '', groups: [] },
  { username: 'alice' },
  { username: 'bob' },
  { username: '1:alice' },
  { uid: 'alice' },
  { groups: ['alice'] },
  {},
];

const base: ResourceAttributes = { verb: 'update', namespace: 'ns', group: 'apps', version: 'v1', resource: 'replicasets', subresource: 'finalizers', name: 'web' };
const resources: ResourceAttributes[] = [
  base,
  { ...base, name: '' },
  { ...base, name: undefined },
  { ...base, namespace: '' },
  { ...base, namespace: 'ns2' },
  // Shifting characters between neighbouring fields must not spell the same key.
  { ...base, namespace: 'nsupdate', verb: '' },
  { ...base, namespace: 'n', verb: 'supdate' },
  { ...base, subresource: 'finalizersweb', name: '' },
  { ...base, subresource: 'finalizers1', name: 'web' },
  { ...base, name: '3:web' },
  { ...base, group: '*', version: '*', resource: '*', name: '*', namespace: '' },
  { ...base, verb: 'delete' },
  { ...base, fieldSelector: {} },
  { ...base, fieldSelector: { rawSelector: 'a=b' } },
  { ...base, labelSelector: { rawSelector: 'a=b' } },
  { ...base, labelSelector: { requirements: [{ key: 'a', operator: 'In', values: ['b'] }] } },
  { ...base, labelSelector: { requirements: [{ key: 'a', operator: 'In', values: [] }] } },
  { ...base, labelSelector: { requirements: [{ key: 'a', operator: 'In' }] } },
  { ...base, labelSelector: { requirements: [] } },
];

function questions(): AuthorizationAttributes[] {
  const out: AuthorizationAttributes[] = [];
  for (const user of users) {
    for (const resourceAttributes of resources) out.push({ user, resourceAttributes });
    out.push({ user, nonResourceAttributes: { verb: 'get', path: '/healthz' } });
    out.push({ user, nonResourceAttributes: { verb: 'get', path: '' } });
    out.push({ user, nonResourceAttributes: { verb: '', path: 'get' } });
    out.push({ user, resourceAttributes: { verb: 'get', namespace: '', name: '' } });
    out.push({ user });
  }
  return out;
}

describe('SubjectAccessReview cache keys', () => {
  it('are equal exactly when the specs sent are equal', () => {
    const keys = new ReviewKeys(1024);
    const all = questions().map((q) => ({ key: keys.keyFor(q), spec: JSON.stringify(subjectAccessReviewSpec(q)) }));
    const keyBySpec = new Map<string, string>();
    const specByKey = new Map<string, string>();
    for (const { key, spec } of all) {
      expect(keyBySpec.get(spec) ?? key).toBe(key);
      expect(specByKey.get(key) ?? spec).toBe(spec);
      keyBySpec.set(spec, key);
      specByKey.set(key, spec);
    }
    // The table does have questions the spec cannot tell apart, and many it can.
    expect(keyBySpec.size).toBeLessThan(all.length);
    expect(keyBySpec.size).toBeGreaterThan(users.length * 10);
  });

  it('read a mutable identity every time, so a changed identity never keeps its old key', () => {
    const keys = new ReviewKeys(16);
    const user: UserInfo = { username: 'alice', groups: ['dev'] };
    const question = { user, resourceAttributes: base };
    const before = keys.keyFor(question);
    user.groups!.push('system:masters');
    expect(keys.keyFor(question)).not.toBe(before);
    expect(keys.keyFor({ user: { username: 'alice', groups: ['dev'] }, resourceAttributes: base })).toBe(before);
  });

  it('give a frozen identity the same key as an equal mutable one', () => {
    const keys = new ReviewKeys(16);
    const frozen = Object.freeze({ username: 'alice', groups: Object.freeze(['dev']), extra: Object.freeze({ scopes: Object.freeze(['a']) }) }) as unknown as UserInfo;
    const first = keys.keyFor({ user: frozen, resourceAttributes: base });
    expect(keys.keyFor({ user: frozen, resourceAttributes: base })).toBe(first);
    expect(keys.keyFor({ user: { username: 'alice', groups: ['dev'], extra: { scopes: ['a'] } }, resourceAttributes: base })).toBe(first);
  });

  it('never give a dropped identity\'s number to another identity', () => {
    const keys = new ReviewKeys(1);
    const alice = keys.keyFor({ user: { username: 'alice' }, resourceAttributes: base });
    const bob = keys.keyFor({ user: { username: 'bob' }, resourceAttributes: base });
    const aliceAgain = keys.keyFor({ user: { username: 'alice' }, resourceAttributes: base });
    expect(new Set([alice, bob, aliceAgain]).size).toBe(3);
  });
});
