// The plugin against upstream's own test doubles: its fakeAuthorizer (recorded, so every question
// asked is visible) and a discovery REST mapper over upstream's fake discovery documents. The same
// tables run against the embedded RBAC evaluator and the cluster backends under test/integration.
import { describe, expect, it } from 'vitest';
import { requestContext } from '../../../test/support/attributes.ts';
import { recordingAuthorizer } from '../../../test/support/authorizers.ts';
import { rejectionOf as outcome } from '../../../test/support/rejections.ts';
import { fixedRestMapper, neverReturningRestMapper, recordingRestMapper } from '../../../test/support/rest-mappers.ts';
import { Operation } from '../../admission/operation.ts';
import { createPlugin } from '../../admission/plugin.ts';
import type { OwnerReference } from '../../api/types.ts';
import type { Authorizer } from '../../ports/authorizer.ts';
import { systemClock, systemRandom } from '../../ports/clock.ts';
import { silentLogger } from '../../ports/logger.ts';
import { definition, ownerReferencesPermissionEnforcement } from './index.ts';
import { allUpstreamCases, attributesFor, expectedMessage, upstreamFakeAuthorizer } from './testdata/upstream-cases.ts';

/** What upstream's fake discovery serves for these tests. */
const fixtureMapper = fixedRestMapper([
  { group: '', version: 'v1', kind: 'Node', resource: 'nodes', namespaced: false },
  { group: '', version: 'v1', kind: 'Pod', resource: 'pods', namespaced: true },
  { group: '', version: 'v1', kind: 'ReplicationController', resource: 'replicationcontrollers', namespaced: true },
  { group: 'apps', version: 'v1', kind: 'DaemonSet', resource: 'daemonsets', namespaced: true },
]);

describe('OwnerReferencesPermissionEnforcement, upstream tables with upstream fakeAuthorizer', () => {
  it.each(allUpstreamCases)('$name', async (c) => {
    const authorizer = recordingAuthorizer(upstreamFakeAuthorizer);
    const mapper = recordingRestMapper(c.hangingRestMapper ? neverReturningRestMapper : fixtureMapper);
    const plugin = ownerReferencesPermissionEnforcement(authorizer, mapper);
    const context = requestContext();

    const error = await outcome(() => plugin.validate(attributesFor(c), context));

    expect(error?.message).toBe(expectedMessage(c));
    if (error !== undefined)
      expect(error.status).toMatchObject({ code: 403, reason: 'Forbidden', details: { name: 'foo', kind: c.resource } });
    expect(context.annotations.path).toBe(c.path === 'none' ? undefined : c.path);
    if (c.path !== 'per-reference') expect(mapper.calls).toEqual([]);
    if (c.path === 'wildcard-probe')
      expect(authorizer.calls.at(-1)?.resourceAttributes).toMatchObject({ group: '*', resource: '*', subresource: 'finalizers' });
    // Every question carries the requester.
    for (const call of authorizer.calls) expect(call.user).toEqual({ username: c.username });
  });
});

const blockingRef = (apiVersion: string, kind: string, name: string, uid = name): OwnerReference => ({
  apiVersion,
  kind,
  name,
  uid,
  blockOwnerDeletion: true,
});

describe('authorization questions', () => {
  const fullIdentity = { username: 'jane', uid: 'u-42', groups: ['dev', 'system:authenticated'], extra: { scopes: ['a', 'b'] } };

  it('asks delete on the dependent exactly as upstream builds it, with the full identity', async () => {
    const authorizer = recordingAuthorizer({ authorize: async () => ({ decision: 'allow', reason: '' }) });
    const plugin = ownerReferencesPermissionEnforcement(authorizer, fixtureMapper);
    const attributes = attributesFor(
      {
        username: 'jane',
        resource: 'pods',
        oldObj: {},
        newObj: { metadata: { ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'n', uid: 'n' }] } },
      },
      fullIdentity,
    );
    await plugin.validate(attributes, requestContext());
    expect(authorizer.calls).toEqual([
      {
        user: fullIdentity,
        resourceAttributes: {
          verb: 'delete',
          namespace: 'default',
          group: '',
          version: 'v1',
          resource: 'pods',
          subresource: '',
          name: 'foo',
        },
      },
    ]);
  });

  it("asks the wildcard probe, then update on each owner's finalizers (namespace only for namespaced owners)", async () => {
    const authorizer = recordingAuthorizer({
      authorize: async (a) => ({ decision: a.resourceAttributes?.resource === '*' ? 'no-opinion' : 'allow', reason: '' }),
    });
    const plugin = ownerReferencesPermissionEnforcement(authorizer, fixtureMapper);
    const newObj = {
      metadata: {
        ownerReferences: [
          blockingRef('v1', 'ReplicationController', 'rc1'),
          blockingRef('v1', 'Node', 'node1'),
          blockingRef('apps/v1', 'DaemonSet', 'ds1'),
        ],
      },
    };
    const context = requestContext();
    await plugin.validate(attributesFor({ username: 'jane', resource: 'pods', newObj }, fullIdentity), context);
    expect(authorizer.calls).toEqual([
      {
        user: fullIdentity,
        resourceAttributes: {
          verb: 'update',
          namespace: '',
          group: '*',
          version: '*',
          resource: '*',
          subresource: 'finalizers',
          name: '*',
        },
      },
      {
        user: fullIdentity,
        resourceAttributes: {
          verb: 'update',
          namespace: 'default',
          group: '',
          version: 'v1',
          resource: 'replicationcontrollers',
          subresource: 'finalizers',
          name: 'rc1',
        },
      },
      {
        user: fullIdentity,
        resourceAttributes: {
          verb: 'update',
          namespace: '',
          group: '',
          version: 'v1',
          resource: 'nodes',
          subresource: 'finalizers',
          name: 'node1',
        },
      },
      {
        user: fullIdentity,
        resourceAttributes: {
          verb: 'update',
          namespace: 'default',
          group: 'apps',
          version: 'v1',
          resource: 'daemonsets',
          subresource: 'finalizers',
          name: 'ds1',
        },
      },
    ]);
    expect(context.annotations.path).toBe('per-reference');
  });

  it('makes exactly ONE authorization and no REST mapper call for a wildcard-allowed user with 10 blocking owners', async () => {
    const authorizer = recordingAuthorizer(upstreamFakeAuthorizer);
    const mapper = recordingRestMapper(fixtureMapper);
    const plugin = ownerReferencesPermissionEnforcement(authorizer, mapper);
    const refs = Array.from({ length: 10 }, (_, i) => blockingRef('v1', 'ReplicationController', `rc${i}`));
    const context = requestContext();
    await plugin.validate(attributesFor({ username: 'super', resource: 'pods', newObj: { metadata: { ownerReferences: refs } } }), context);
    expect(authorizer.calls).toHaveLength(1);
    expect(authorizer.calls[0]?.resourceAttributes).toEqual({
      verb: 'update',
      namespace: '',
      group: '*',
      version: '*',
      resource: '*',
      subresource: 'finalizers',
      name: '*',
    });
    expect(mapper.calls).toHaveLength(0);
    expect(context.annotations.path).toBe('wildcard-probe');
  });

  it('requires every mapping of a kind that maps to several resources', async () => {
    // "autoscaling/" has no version: the kind maps in every served version of the group.
    const mapper = fixedRestMapper([
      { group: 'autoscaling', version: 'v2', kind: 'HorizontalPodAutoscaler', resource: 'horizontalpodautoscalers', namespaced: true },
      { group: 'autoscaling', version: 'v1', kind: 'HorizontalPodAutoscaler', resource: 'horizontalpodautoscalers', namespaced: true },
    ]);
    const deniedV1 = recordingAuthorizer({
      authorize: async (a) => {
        if (a.resourceAttributes?.resource === '*') return { decision: 'no-opinion', reason: '' };
        return a.resourceAttributes?.version === 'v1'
          ? { decision: 'deny', reason: 'v1 is off limits' }
          : { decision: 'allow', reason: '' };
      },
    });
    const plugin = ownerReferencesPermissionEnforcement(deniedV1, mapper);
    const newObj = { metadata: { ownerReferences: [blockingRef('autoscaling/', 'HorizontalPodAutoscaler', 'hpa')] } };
    const error = await outcome(() => plugin.validate(attributesFor({ username: 'jane', resource: 'pods', newObj }), requestContext()));
    expect(error?.message).toBe(
      `pods "foo" is forbidden: cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: v1 is off limits, <nil>`,
    );
    expect(deniedV1.calls.slice(1).map((c) => c.resourceAttributes?.version)).toEqual(['v2', 'v1']);
  });
});

describe('per-reference work', () => {
  it('answers the cheap exits without an authorization', async () => {
    const authorizer = recordingAuthorizer(upstreamFakeAuthorizer);
    const plugin = ownerReferencesPermissionEnforcement(authorizer, fixtureMapper);
    const context = requestContext();
    await plugin.validate(attributesFor({ username: 'jane', resource: 'pods', newObj: { metadata: {} } }), context);
    expect(context.annotations.path).toBe('unchanged');
    expect(authorizer.calls).toEqual([]);
  });

  it('asks the REST mapper once per owner kind in a request, and authorizes every owner', async () => {
    const authorizer = recordingAuthorizer({
      authorize: async (a) => ({ decision: a.resourceAttributes?.resource === '*' ? 'no-opinion' : 'allow', reason: '' }),
    });
    const mapper = recordingRestMapper(fixtureMapper);
    const plugin = ownerReferencesPermissionEnforcement(authorizer, mapper);
    const refs = [
      blockingRef('apps/v1', 'DaemonSet', 'ds-a'),
      blockingRef('apps/v1', 'DaemonSet', 'ds-b'),
      blockingRef('v1', 'Node', 'n'),
      blockingRef('apps/v1', 'DaemonSet', 'ds-c'),
    ];
    const error = await outcome(() =>
      plugin.validate(
        attributesFor({ username: 'jane', resource: 'pods', newObj: { metadata: { ownerReferences: refs } } }),
        requestContext(),
      ),
    );
    expect(error).toBeUndefined();
    expect(mapper.calls).toEqual([
      { group: 'apps', kind: 'DaemonSet', versions: ['v1'] },
      { group: '', kind: 'Node', versions: ['v1'] },
    ]);
    expect(authorizer.calls.slice(1).map((c) => `${c.resourceAttributes?.resource}/${c.resourceAttributes?.name}`)).toEqual([
      'daemonsets/ds-a',
      'daemonsets/ds-b',
      'nodes/n',
      'daemonsets/ds-c',
    ]);
  });

  it('asks once about an owner listed many times (the same question has the same answer)', async () => {
    const authorizer = recordingAuthorizer({
      authorize: async (a) => ({ decision: a.resourceAttributes?.resource === '*' ? 'no-opinion' : 'allow', reason: '' }),
    });
    const mapper = recordingRestMapper(fixtureMapper);
    const plugin = ownerReferencesPermissionEnforcement(authorizer, mapper);
    // Ten thousand references to two owners, each with its own uid (so upstream would see them all as new).
    const refs = Array.from({ length: 10_000 }, (_, i) => blockingRef('apps/v1', 'DaemonSet', i % 2 === 0 ? 'ds-a' : 'ds-b', `uid-${i}`));
    const error = await outcome(() =>
      plugin.validate(
        attributesFor({ username: 'jane', resource: 'pods', newObj: { metadata: { ownerReferences: refs } } }),
        requestContext(),
      ),
    );
    expect(error).toBeUndefined();
    expect(mapper.calls).toHaveLength(1);
    expect(authorizer.calls.slice(1).map((c) => c.resourceAttributes?.name)).toEqual(['ds-a', 'ds-b']);
  });

  it('still denies on a repeated owner the user may not finalize', async () => {
    const authorizer = recordingAuthorizer({
      authorize: async (a) => ({
        decision: a.resourceAttributes?.resource === '*' || a.resourceAttributes?.name === 'ds-b' ? 'no-opinion' : 'allow',
        reason: '',
      }),
    });
    const plugin = ownerReferencesPermissionEnforcement(authorizer, fixtureMapper);
    const refs = [
      blockingRef('apps/v1', 'DaemonSet', 'ds-a', 'u1'),
      blockingRef('apps/v1', 'DaemonSet', 'ds-a', 'u2'),
      blockingRef('apps/v1', 'DaemonSet', 'ds-b', 'u3'),
    ];
    const error = await outcome(() =>
      plugin.validate(
        attributesFor({ username: 'jane', resource: 'pods', newObj: { metadata: { ownerReferences: refs } } }),
        requestContext(),
      ),
    );
    expect(error?.message).toBe(
      `pods "foo" is forbidden: cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: , <nil>`,
    );
    expect(authorizer.calls.slice(1).map((c) => c.resourceAttributes?.name)).toEqual(['ds-a', 'ds-b']);
  });
});

describe('failures', () => {
  const denyProbe: Authorizer = {
    authorize: async (a) => ({ decision: a.resourceAttributes?.resource === '*' ? 'no-opinion' : 'allow', reason: '' }),
  };

  it("rejects a malformed apiVersion with upstream's mapping message, without asking the REST mapper", async () => {
    const mapper = recordingRestMapper(fixtureMapper);
    const plugin = ownerReferencesPermissionEnforcement(denyProbe, mapper);
    const error = await outcome(() =>
      plugin.validate(
        attributesFor({
          username: 'jane',
          resource: 'pods',
          newObj: { metadata: { ownerReferences: [blockingRef('a/b/c', 'Thing', 'x')] } },
        }),
        requestContext(),
      ),
    );
    expect(error?.message).toBe(
      'pods "foo" is forbidden: cannot set blockOwnerDeletion in this case because cannot find RESTMapping for APIVersion a/b/c Kind Thing: unexpected GroupVersion string: a/b/c',
    );
    expect(mapper.calls).toEqual([]);
  });

  it('treats a thrown authorizer error as a denial and quotes it (fail closed)', async () => {
    const plugin = ownerReferencesPermissionEnforcement(
      { authorize: async () => Promise.reject(new Error('connection refused')) },
      fixtureMapper,
    );
    const error = await outcome(() =>
      plugin.validate(
        attributesFor({
          username: 'jane',
          resource: 'pods',
          oldObj: {},
          newObj: { metadata: { ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'n', uid: 'n' }] } },
        }),
        requestContext(),
      ),
    );
    expect(error?.message).toBe(`pods "foo" is forbidden: cannot set an ownerRef on a resource you can't delete: , connection refused`);
  });

  it.each(['deny', 'no-opinion'] as const)('treats %s with a reason and an error as a denial, quoting both', async (decision) => {
    const plugin = ownerReferencesPermissionEnforcement(
      { authorize: async () => ({ decision, reason: 'RBAC: nope', error: 'role "x" not found' }) },
      fixtureMapper,
    );
    const error = await outcome(() =>
      plugin.validate(
        attributesFor({
          username: 'jane',
          resource: 'pods',
          oldObj: {},
          newObj: { metadata: { ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'n', uid: 'n' }] } },
        }),
        requestContext(),
      ),
    );
    expect(error?.message).toBe(
      `pods "foo" is forbidden: cannot set an ownerRef on a resource you can't delete: RBAC: nope, role "x" not found`,
    );
  });

  it('turns a REST mapper that gives up at the deadline into the mapping Forbidden, not a hang', async () => {
    const slowMapper = {
      mappingsFor: (_gk: unknown, _v: unknown, signal?: AbortSignal) =>
        new Promise<never>((_, reject) =>
          signal?.addEventListener('abort', () => reject(new Error('context deadline exceeded')), { once: true }),
        ),
    };
    const plugin = ownerReferencesPermissionEnforcement(denyProbe, slowMapper);
    const error = await outcome(() =>
      plugin.validate(
        attributesFor({ username: 'jane', resource: 'pods', newObj: { metadata: { ownerReferences: [blockingRef('v1', 'Node', 'n')] } } }),
        requestContext(AbortSignal.timeout(50)),
      ),
    );
    expect(error?.message).toBe(
      'pods "foo" is forbidden: cannot set blockOwnerDeletion in this case because cannot find RESTMapping for APIVersion v1 Kind Node: context deadline exceeded',
    );
  });
});

describe('definition', () => {
  const base = { logger: silentLogger, clock: systemClock, random: systemRandom };

  it('is the validating OwnerReferencesPermissionEnforcement plugin for CREATE and UPDATE', () => {
    const plugin = definition.create({ ...base, authorizer: upstreamFakeAuthorizer, restMapper: fixtureMapper });
    expect(definition.name).toBe('OwnerReferencesPermissionEnforcement');
    expect(definition.needs).toEqual(['authorizer', 'restMapper']);
    expect(plugin.name).toBe('OwnerReferencesPermissionEnforcement');
    expect(plugin.validate).toBeTypeOf('function');
    expect(plugin.admit).toBeUndefined();
    expect([Operation.Create, Operation.Update, Operation.Delete, Operation.Connect].filter((op) => plugin.handles(op))).toEqual([
      Operation.Create,
      Operation.Update,
    ]);
  });

  it('fails clearly without its ports', () => {
    expect(() => createPlugin(definition, { ...base, restMapper: fixtureMapper }, 'test')).toThrow(
      'admission plugin OwnerReferencesPermissionEnforcement needs a authorizer, which the test backend does not provide',
    );
    expect(() => createPlugin(definition, { ...base, authorizer: upstreamFakeAuthorizer }, 'test')).toThrow(
      'admission plugin OwnerReferencesPermissionEnforcement needs a restMapper, which the test backend does not provide',
    );
  });
});
