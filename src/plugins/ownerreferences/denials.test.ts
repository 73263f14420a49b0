// What the plugin asks after its first denial is bounded in questions and time, and never changes
// the answer: the first rejection is thrown, with upstream's message, carrying what was gathered.
import { describe, expect, it } from 'vitest';
import type { OwnerReference } from '../../api/types.ts';
import type { AuthorizationResult, Authorizer } from '../../ports/authorizer.ts';
import { attributesFor } from './upstream-cases.ts';
import { fixedRestMapper } from '../../../test/support/rest-mappers.ts';
import { rejectionOf as outcome } from '../../../test/support/rejections.ts';
import { recordingAuthorizer } from '../../../test/support/authorizers.ts';
import { requestContext } from '../../../test/support/attributes.ts';
import { explanationBudgetMs, maxQuestionsAfterDenial } from './denials.ts';
import { explanationOf } from '../../admission/explanation.ts';
import { ownerReferencesPermissionEnforcement } from './index.ts';

const mapper = fixedRestMapper([{ group: '', version: 'v1', kind: 'ReplicationController', resource: 'replicationcontrollers', namespaced: true }]);
const block = (name: string): OwnerReference => ({ apiVersion: 'v1', kind: 'ReplicationController', name, uid: name, blockOwnerDeletion: true });
const pod = (count: number) => ({ metadata: { ownerReferences: Array.from({ length: count }, (_, i) => block(`rc-${i}`)) } });
const no: AuthorizationResult = { decision: 'no-opinion', reason: '' };
const finalizers = "cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: , <nil>";

describe('after the first denial', () => {
  it('asks at most the bounded number of further questions, and says the explanation is incomplete', async () => {
    const authorizer = recordingAuthorizer({ authorize: () => no });
    const plugin = ownerReferencesPermissionEnforcement(authorizer, mapper);
    const error = await outcome(() => plugin.validate(attributesFor({ username: 'u', resource: 'pods', newObj: pod(100) }), requestContext()));
    expect(error?.message).toBe(`pods "foo" is forbidden: ${finalizers}`);
    // The probe, the first owner (denied), then the bound: each owner takes two of the questions
    // after it (its kind's mapping and its finalizers), and one authorization of the two.
    expect(authorizer.calls.length).toBe(2 + maxQuestionsAfterDenial / 2);
    expect(explanationOf(error!)?.incomplete).toBe(true);
    expect(explanationOf(error!)?.facts.length).toBeGreaterThan(1);
  });

  it('stops waiting when answers stop coming, and still rejects long before the request deadline', async () => {
    let asked = 0;
    const stalls: Authorizer = { authorize: (a) => (a.resourceAttributes?.resource === '*' ? no : asked++ === 0 ? no : new Promise(() => {})) };
    const plugin = ownerReferencesPermissionEnforcement(stalls, mapper);
    const started = performance.now();
    const context = { ...requestContext(AbortSignal.timeout(30_000)), expiresAt: performance.now() + 30_000 };
    const error = await outcome(() => plugin.validate(attributesFor({ username: 'u', resource: 'pods', newObj: pod(3) }), context));
    const took = performance.now() - started;
    expect(error?.message).toBe(`pods "foo" is forbidden: ${finalizers}`);
    expect(took).toBeLessThan(explanationBudgetMs + 5000);
    expect(explanationOf(error!)).toMatchObject({ incomplete: true, facts: [{ type: 'authorization', attributes: { resourceAttributes: { name: 'rc-0' } } }] });
  });

  it('aborts a question cut off by the explanation\'s bounds, so none runs on after the answer', async () => {
    let asked = 0;
    const signals: AbortSignal[] = [];
    const stalls: Authorizer = {
      authorize: (a, signal) => {
        if (a.resourceAttributes?.resource === '*' || asked++ === 0) return no;
        signals.push(signal!);
        return new Promise(() => {});
      },
    };
    const request = new AbortController();
    const context = { ...requestContext(request.signal), expiresAt: performance.now() + 100 };
    const error = await outcome(() => ownerReferencesPermissionEnforcement(stalls, mapper).validate(attributesFor({ username: 'u', resource: 'pods', newObj: pod(3) }), context));
    expect(error?.message).toBe(`pods "foo" is forbidden: ${finalizers}`);
    expect(signals).toHaveLength(1);
    expect(signals[0]!.aborted).toBe(true);
    expect(request.signal.aborted).toBe(false);
  });

  it('gives the explanation at most half of what is left before the deadline', async () => {
    let asked = 0;
    const stalls: Authorizer = { authorize: (a) => (a.resourceAttributes?.resource === '*' ? no : asked++ === 0 ? Promise.resolve(no) : new Promise(() => {})) };
    const plugin = ownerReferencesPermissionEnforcement(stalls, mapper);
    const started = performance.now();
    const context = { ...requestContext(), expiresAt: performance.now() + 200 };
    const error = await outcome(() => plugin.validate(attributesFor({ username: 'u', resource: 'pods', newObj: pod(3) }), context));
    expect(error?.message).toBe(`pods "foo" is forbidden: ${finalizers}`);
    expect(performance.now() - started).toBeLessThan(200);
  });

  it('before any denial nothing is bounded or raced: every owner is asked about as upstream asks', async () => {
    const authorizer = recordingAuthorizer({ authorize: (a) => (a.resourceAttributes?.resource === '*' ? no : { decision: 'allow', reason: '' }) });
    await ownerReferencesPermissionEnforcement(authorizer, mapper).validate(attributesFor({ username: 'u', resource: 'pods', newObj: pod(40) }), requestContext());
    expect(authorizer.calls).toHaveLength(41);
  });
});
