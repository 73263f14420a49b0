// What the plugin asks after its first denial is bounded in questions and time, and never changes
// the answer: the first rejection is thrown, with upstream's message, carrying what was gathered.
import { describe, expect, it } from 'vitest';
import { deadlineOf, requestContext } from '../../../test/support/attributes.ts';
import { recordingAuthorizer } from '../../../test/support/authorizers.ts';
import { testPorts } from '../../../test/support/ports.ts';
import { rejectionOf as outcome } from '../../../test/support/rejections.ts';
import { fixedRestMapper } from '../../../test/support/rest-mappers.ts';
import { explanationOf } from '../../admission/explanation.ts';
import type { OwnerReference } from '../../api/types.ts';
import { createMetrics } from '../../observability/metrics.ts';
import type { AuthorizationResult, Authorizer } from '../../ports/authorizer.ts';
import { buildChain } from '../../wiring/chain.ts';
import { explanationBudgetMs, maxQuestionsAfterDenial } from './denials.ts';
import { definition, ownerReferencesPermissionEnforcement } from './index.ts';
import { attributesFor } from './testdata/upstream-cases.ts';

const mapper = fixedRestMapper([
  { group: '', version: 'v1', kind: 'ReplicationController', resource: 'replicationcontrollers', namespaced: true },
]);
const block = (name: string): OwnerReference => ({
  apiVersion: 'v1',
  kind: 'ReplicationController',
  name,
  uid: name,
  blockOwnerDeletion: true,
});
const pod = (count: number) => ({ metadata: { ownerReferences: Array.from({ length: count }, (_, i) => block(`rc-${i}`)) } });
const no: AuthorizationResult = { decision: 'no-opinion', reason: '' };
const finalizers = "cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: , <nil>";

describe('after the first denial', () => {
  it('asks at most the bounded number of further questions, and says the explanation is incomplete', async () => {
    const authorizer = recordingAuthorizer({ authorize: async () => no });
    const plugin = ownerReferencesPermissionEnforcement(authorizer, mapper);
    const error = await outcome(() =>
      plugin.validate(attributesFor({ username: 'u', resource: 'pods', newObj: pod(100) }), requestContext()),
    );
    expect(error?.message).toBe(`pods "foo" is forbidden: ${finalizers}`);
    // The probe, the first owner (denied), then the bound: each owner takes two of the questions
    // after it (its kind's mapping and its finalizers), and one authorization of the two.
    expect(authorizer.calls.length).toBe(2 + maxQuestionsAfterDenial / 2);
    expect(explanationOf(error!)?.incomplete).toBe(true);
    expect(explanationOf(error!)?.facts.length).toBeGreaterThan(1);
  });

  it('stops waiting when answers stop coming, and still rejects long before the request deadline', async () => {
    let asked = 0;
    const stalls: Authorizer = {
      authorize: (a) => (a.resourceAttributes?.resource === '*' || asked++ === 0 ? Promise.resolve(no) : new Promise(() => {})),
    };
    const plugin = ownerReferencesPermissionEnforcement(stalls, mapper);
    const started = performance.now();
    const context = requestContext(AbortSignal.timeout(30_000), performance.now() + 30_000);
    const error = await outcome(() => plugin.validate(attributesFor({ username: 'u', resource: 'pods', newObj: pod(3) }), context));
    const took = performance.now() - started;
    expect(error?.message).toBe(`pods "foo" is forbidden: ${finalizers}`);
    expect(took).toBeLessThan(explanationBudgetMs + 5000);
    expect(explanationOf(error!)).toMatchObject({
      incomplete: true,
      facts: [{ type: 'authorization', attributes: { resourceAttributes: { name: 'rc-0' } } }],
    });
  });

  it("aborts a question cut off by the explanation's bounds, so none runs on after the answer", async () => {
    let asked = 0;
    const signals: AbortSignal[] = [];
    const stalls: Authorizer = {
      authorize: (a, signal) => {
        if (a.resourceAttributes?.resource === '*' || asked++ === 0) return Promise.resolve(no);
        signals.push(signal!);
        return new Promise(() => {});
      },
    };
    const request = new AbortController();
    const context = requestContext(request.signal, performance.now() + 100);
    const error = await outcome(() =>
      ownerReferencesPermissionEnforcement(stalls, mapper).validate(
        attributesFor({ username: 'u', resource: 'pods', newObj: pod(3) }),
        context,
      ),
    );
    expect(error?.message).toBe(`pods "foo" is forbidden: ${finalizers}`);
    expect(signals).toHaveLength(1);
    expect(signals[0]!.aborted).toBe(true);
    expect(request.signal.aborted).toBe(false);
  });

  it('gives the explanation at most half of what is left before the deadline', async () => {
    let asked = 0;
    const stalls: Authorizer = {
      authorize: (a) => (a.resourceAttributes?.resource === '*' || asked++ === 0 ? Promise.resolve(no) : new Promise(() => {})),
    };
    const plugin = ownerReferencesPermissionEnforcement(stalls, mapper);
    const started = performance.now();
    const context = requestContext(undefined, performance.now() + 200);
    const error = await outcome(() => plugin.validate(attributesFor({ username: 'u', resource: 'pods', newObj: pod(3) }), context));
    expect(error?.message).toBe(`pods "foo" is forbidden: ${finalizers}`);
    expect(performance.now() - started).toBeLessThan(200);
  });

  it('before any denial nothing is bounded or raced: every owner is asked about as upstream asks', async () => {
    const authorizer = recordingAuthorizer({
      authorize: async (a) => (a.resourceAttributes?.resource === '*' ? no : { decision: 'allow', reason: '' }),
    });
    await ownerReferencesPermissionEnforcement(authorizer, mapper).validate(
      attributesFor({ username: 'u', resource: 'pods', newObj: pod(40) }),
      requestContext(),
    );
    expect(authorizer.calls).toHaveLength(41);
  });
});

describe('as serve wires it, behind the metrics decorators', () => {
  // The clock passes the deadline while the first owner's question is answered: from then on no
  // time is left to explain the denial, so no further question may be asked. A decorator that lost
  // the deadline would let the plugin ask about every owner.
  const passesTheDeadline = (expiresAt: number): Authorizer => ({
    authorize: async (a) => {
      if (a.resourceAttributes?.resource === '*') return no;
      while (performance.now() < expiresAt);
      return no;
    },
  });

  it('asks nothing more once the deadline has passed, with the decorators as without them', async () => {
    for (const metrics of [createMetrics({ defaultMetrics: false }), undefined]) {
      // Far enough ahead that the chain's own check before the plugin passes on a loaded machine.
      const expiresAt = performance.now() + 50;
      const authorizer = recordingAuthorizer(passesTheDeadline(expiresAt));
      const chain = buildChain({
        enabled: [definition],
        modes: {},
        backend: { name: 'local', ports: testPorts({ authorizer, restMapper: mapper }) },
        metrics,
      });
      const { rejection } = await chain.validate(
        attributesFor({ username: 'u', resource: 'pods', newObj: pod(3) }),
        deadlineOf(undefined, expiresAt),
      );
      const decorated = metrics === undefined ? 'without metrics' : 'with metrics';
      expect(rejection?.message, decorated).toBe(`pods "foo" is forbidden: ${finalizers}`);
      // The probe and the first owner; not the two owners after it.
      expect(authorizer.calls, decorated).toHaveLength(2);
      expect(explanationOf(rejection!), decorated).toMatchObject({
        incomplete: true,
        facts: [{ attributes: { resourceAttributes: { name: 'rc-0' } } }],
      });
    }
  });
});
