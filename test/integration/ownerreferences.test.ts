// Every upstream gc_admission_test.go row through the local backend: upstream's fake authorizer
// users translated into RBAC (test/fixtures/ownerreferences/cluster-state.yaml) and answered by
// the embedded RBAC evaluator, with the REST mapper built from the same file's discovery.
import { describe, expect, it } from 'vitest';
import { createRbacAuthorizer } from '../../src/adapters/local/rbac/index.ts';
import { createLocalRestMapper } from '../../src/adapters/local/rest-mapper.ts';
import { AdmissionChain } from '../../src/admission/chain.ts';
import { PluginMode } from '../../src/admission/plugin.ts';
import type { OwnerReference } from '../../src/api/types.ts';
import { createExplainer } from '../../src/explain/index.ts';
import { definition, ownerReferencesPermissionEnforcement } from '../../src/plugins/ownerreferences/index.ts';
import {
  allUpstreamCases,
  attributesFor,
  expectedMessage,
  upstreamFakeAuthorizer,
} from '../../src/plugins/ownerreferences/testdata/upstream-cases.ts';
import type { Authorizer } from '../../src/ports/authorizer.ts';
import { systemClock, systemRandom } from '../../src/ports/clock.ts';
import { silentLogger } from '../../src/ports/logger.ts';
import { deadlineOf, requestContext } from '../support/attributes.ts';
import { recordingAuthorizer } from '../support/authorizers.ts';
import { loadFixtureClusterState } from '../support/cluster-state.ts';
import { rejectionOf as outcome } from '../support/rejections.ts';
import { neverReturningRestMapper, recordingRestMapper } from '../support/rest-mappers.ts';

const state = loadFixtureClusterState('ownerreferences/cluster-state.yaml');
const rbac = createRbacAuthorizer(state);
const restMapper = createLocalRestMapper(state);

describe("the RBAC fixture is a faithful translation of upstream's fakeAuthorizer", () => {
  // Every question the plugin asks in the tables, answered by both: allow must agree exactly.
  it.each(allUpstreamCases)('$name', async (c) => {
    const fake = recordingAuthorizer(upstreamFakeAuthorizer);
    const plugin = ownerReferencesPermissionEnforcement(fake, c.hangingRestMapper ? neverReturningRestMapper : restMapper);
    await outcome(() => plugin.validate(attributesFor(c), requestContext()));
    for (const [i, question] of fake.calls.entries()) {
      const answer = await rbac.authorize(question);
      expect(answer.decision === 'allow', JSON.stringify(question)).toBe(fake.results[i]!.decision === 'allow');
    }
  });

  it('has no manifest problems', () => {
    expect(rbac.lintWarnings()).toEqual([]);
  });
});

describe('OwnerReferencesPermissionEnforcement, upstream tables, embedded RBAC + local discovery', () => {
  it.each(allUpstreamCases)('$name', async (c) => {
    const authorizer = recordingAuthorizer(rbac);
    const mapper = recordingRestMapper(c.hangingRestMapper ? neverReturningRestMapper : restMapper);
    const plugin = ownerReferencesPermissionEnforcement(authorizer, mapper);
    const context = requestContext();

    const error = await outcome(() => plugin.validate(attributesFor(c), context));

    expect(error?.message).toBe(expectedMessage(c));
    expect(context.annotations.path).toBe(c.path === 'none' ? undefined : c.path);
    if (c.path !== 'per-reference') expect(mapper.calls).toEqual([]);
  });
});

describe('the wildcard probe', () => {
  const tenOwners = Array.from(
    { length: 10 },
    (_, i): OwnerReference => ({
      apiVersion: i % 2 === 0 ? 'v1' : 'apps/v1',
      kind: i % 2 === 0 ? 'ReplicationController' : 'DaemonSet',
      name: `owner-${i}`,
      uid: `uid-${i}`,
      blockOwnerDeletion: true,
    }),
  );
  const newObj = { metadata: { ownerReferences: tenOwners } };

  it('makes exactly ONE authorization and ZERO REST mapper calls for a wildcard-allowed user with 10 owners', async () => {
    const authorizer = recordingAuthorizer(rbac);
    const mapper = recordingRestMapper(restMapper);
    const context = requestContext();
    await ownerReferencesPermissionEnforcement(authorizer, mapper).validate(
      attributesFor({ username: 'super', resource: 'pods', newObj }),
      context,
    );
    expect(authorizer.calls).toHaveLength(1);
    expect(authorizer.results[0]).toEqual({
      decision: 'allow',
      reason: 'RBAC: allowed by ClusterRoleBinding "super" of ClusterRole "super" to User "super"',
    });
    expect(mapper.calls).toHaveLength(0);
    expect(context.annotations.path).toBe('wildcard-probe');
  });

  it('is also passed by an "update */finalizers" grant and by system:masters', async () => {
    const finalizerState = loadFixtureClusterState('ownerreferences/cluster-state.yaml');
    finalizerState.clusterRoles.push({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'finalizer' },
      rules: [{ apiGroups: ['*'], resources: ['*/finalizers'], verbs: ['update'] }],
    });
    finalizerState.clusterRoleBindings.push({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'finalizer' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'finalizer' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'finalizer' }],
    });
    for (const user of [{ username: 'finalizer' }, { username: 'admin', groups: ['system:masters'] }]) {
      const authorizer = recordingAuthorizer(createRbacAuthorizer(finalizerState));
      const mapper = recordingRestMapper(neverReturningRestMapper);
      await ownerReferencesPermissionEnforcement(authorizer, mapper).validate(
        attributesFor({ username: '', resource: 'pods', newObj }, user),
        requestContext(),
      );
      expect(authorizer.calls).toHaveLength(1);
      expect(mapper.calls).toHaveLength(0);
    }
  });

  it('denied, the per-reference path checks every owner: 1 probe + 10 finalizer checks, one mapping per owner kind', async () => {
    const authorizer = recordingAuthorizer(rbac);
    const mapper = recordingRestMapper(restMapper);
    const context = requestContext();
    await ownerReferencesPermissionEnforcement(authorizer, mapper).validate(
      attributesFor({ username: 'non-node-deleter', resource: 'pods', newObj }),
      context,
    );
    expect(authorizer.calls).toHaveLength(11);
    expect(authorizer.calls.slice(1).map((c) => c.resourceAttributes?.name)).toEqual(tenOwners.map((o) => o.name));
    expect(mapper.calls.map((c) => c.kind)).toEqual(['ReplicationController', 'DaemonSet']);
    expect(context.annotations.path).toBe('per-reference');
  });
});

describe('in the chain', () => {
  it('runs as a validating plugin and records its path as a prefixed audit annotation', async () => {
    const plugin = definition.create({ logger: silentLogger, clock: systemClock, random: systemRandom, authorizer: rbac, restMapper });
    const chain = new AdmissionChain([{ plugin, mode: PluginMode.Enforce }], { explainer: createExplainer() });
    const row = allUpstreamCases.find((c) => c.name === 'non-rc-deleter, create, some ownerReferences have blockOwnerDeletion=true')!;
    const result = await chain.validate(attributesFor(row), deadlineOf(AbortSignal.timeout(5000)));
    expect(result.rejectedBy).toBe('OwnerReferencesPermissionEnforcement');
    expect(result.rejection?.message).toBe(expectedMessage(row));
    // Beside the path, the explanation: the Role and RoleBinding that would grant what was missing.
    expect(result.annotations).toEqual({
      'OwnerReferencesPermissionEnforcement.path': 'per-reference',
      'OwnerReferencesPermissionEnforcement.explanation': expect.stringContaining('kind: Role\n'),
    });
    expect(chain.validatingPlugins).toEqual(['OwnerReferencesPermissionEnforcement']);
    expect(chain.mutatingPlugins).toEqual([]);
  });
});

describe('the REST mapping failures a user sees, with discovery from the fixture', () => {
  const denyProbe: Authorizer = {
    authorize: async (a) => ({ decision: a.resourceAttributes?.resource === '*' ? 'no-opinion' : 'allow', reason: '' }),
  };
  const blockingRef = (apiVersion: string, kind: string, name: string): OwnerReference => ({
    apiVersion,
    kind,
    name,
    uid: name,
    blockOwnerDeletion: true,
  });

  it.each([
    [
      'an unknown kind',
      blockingRef('v1', 'Unknown', 'x'),
      'cannot find RESTMapping for APIVersion v1 Kind Unknown: no matches for kind "Unknown" in version "v1"',
    ],
    [
      'a known kind in an unknown version',
      blockingRef('apps/v9', 'DaemonSet', 'x'),
      'cannot find RESTMapping for APIVersion apps/v9 Kind DaemonSet: no matches for kind "DaemonSet" in version "apps/v9"',
    ],
    [
      'a subresource kind',
      blockingRef('v1', 'Binding', 'x'),
      'cannot find RESTMapping for APIVersion v1 Kind Binding: no matches for kind "Binding" in version "v1"',
    ],
  ])("rejects %s with upstream's mapping message", async (_label, ref, tail) => {
    const plugin = ownerReferencesPermissionEnforcement(denyProbe, restMapper);
    const error = await outcome(() =>
      plugin.validate(
        attributesFor({ username: 'jane', resource: 'pods', newObj: { metadata: { ownerReferences: [ref] } } }),
        requestContext(),
      ),
    );
    expect(error?.message).toBe(`pods "foo" is forbidden: cannot set blockOwnerDeletion in this case because ${tail}`);
  });
});
