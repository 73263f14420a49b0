// Every upstream gc_admission_test.go row through the cluster backend: the real
// @kubernetes/client-node asking the stand-in API server's SubjectAccessReview endpoint (answered
// by the embedded RBAC evaluator over the translated fixture) and its discovery endpoints.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type ClusterAuthorizer, createClusterAuthorizer } from '../../src/adapters/cluster/authorization/authorizer.ts';
import { type ClusterRestMapper, createClusterRestMapper } from '../../src/adapters/cluster/rest-mapping/rest-mapper.ts';
import { createRbacAuthorizer } from '../../src/adapters/local/rbac/index.ts';
import { explanationOf } from '../../src/admission/explanation.ts';
import type { OwnerReference } from '../../src/api/types.ts';
import { createExplainer } from '../../src/explain/index.ts';
import { ownerReferencesPermissionEnforcement } from '../../src/plugins/ownerreferences/index.ts';
import { allUpstreamCases, attributesFor, expectedMessage } from '../../src/plugins/ownerreferences/testdata/upstream-cases.ts';
import { type ServedDiscovery, serveDiscovery } from '../apiserver/discovery-routes.ts';
import { type StandInApiServer, startStandInApiServer, subjectAccessReviewRouteName } from '../apiserver/index.ts';
import { requestContext } from '../support/attributes.ts';
import { recordingAuthorizer } from '../support/authorizers.ts';
import { loadFixtureClusterState } from '../support/cluster-state.ts';
import { rejectionOf as outcome } from '../support/rejections.ts';
import { neverReturningRestMapper, recordingRestMapper } from '../support/rest-mappers.ts';

const state = loadFixtureClusterState('ownerreferences/cluster-state.yaml');
let api: StandInApiServer;
let discovery: ServedDiscovery;

beforeAll(async () => {
  api = await startStandInApiServer({ authorizer: createRbacAuthorizer(state) });
  discovery = serveDiscovery(api, state.apiResourceLists);
});
afterAll(async () => {
  await api.close();
});
beforeEach(() => {
  api.calls.reset();
});

const discoveryCalls = () => discovery.routeNames().reduce((sum, name) => sum + api.calls.count(name), 0);

describe('OwnerReferencesPermissionEnforcement, upstream tables, SubjectAccessReview + discovery', () => {
  let authorizer: ClusterAuthorizer;
  let mapper: ClusterRestMapper;
  beforeAll(() => {
    mapper = createClusterRestMapper({ kubeConfig: api.kubeConfig });
  });
  afterAll(async () => {
    await mapper.close();
  });
  beforeEach(() => {
    // A fresh authorizer per row: no answer cached by an earlier row, so every question is sent.
    authorizer = createClusterAuthorizer({ kubeConfig: api.kubeConfig });
  });

  it.each(allUpstreamCases)('$name', async (c) => {
    const recordedMapper = recordingRestMapper(c.hangingRestMapper ? neverReturningRestMapper : mapper);
    const recordedAuthorizer = recordingAuthorizer(authorizer);
    const plugin = ownerReferencesPermissionEnforcement(recordedAuthorizer, recordedMapper);
    const context = requestContext(AbortSignal.timeout(10_000));

    const error = await outcome(() => plugin.validate(attributesFor(c), context));
    await authorizer.close();

    expect(error?.message).toBe(expectedMessage(c));
    expect(context.annotations.path).toBe(c.path === 'none' ? undefined : c.path);
    if (c.path !== 'per-reference') expect(recordedMapper.calls).toEqual([]);
    // Each question went over the wire as a SubjectAccessReview naming the requester.
    expect(api.calls.count(subjectAccessReviewRouteName)).toBe(recordedAuthorizer.calls.length);
    for (const body of api.calls.bodies(subjectAccessReviewRouteName)) expect(body).toMatchObject({ spec: { user: c.username } });
  });
});

describe('the wildcard probe over the wire', () => {
  const newObj = {
    metadata: {
      ownerReferences: Array.from(
        { length: 10 },
        (_, i): OwnerReference => ({
          apiVersion: 'v1',
          kind: 'ReplicationController',
          name: `rc-${i}`,
          uid: `uid-${i}`,
          blockOwnerDeletion: true,
        }),
      ),
    },
  };

  it('sends exactly ONE SubjectAccessReview and makes NO discovery call for a wildcard-allowed user with 10 owners', async () => {
    const authorizer = createClusterAuthorizer({ kubeConfig: api.kubeConfig });
    const mapper = createClusterRestMapper({ kubeConfig: api.kubeConfig });
    const identity = {
      username: 'super',
      uid: 'u-1',
      groups: ['ops', 'system:authenticated'],
      extra: { 'authentication.kubernetes.io/credential-id': ['X509SHA256=abc'] },
    };
    const context = requestContext();
    await ownerReferencesPermissionEnforcement(authorizer, mapper).validate(
      attributesFor({ username: 'super', resource: 'pods', newObj }, identity),
      context,
    );
    await Promise.all([authorizer.close(), mapper.close()]);

    expect(api.calls.count(subjectAccessReviewRouteName)).toBe(1);
    expect(discoveryCalls()).toBe(0);
    expect(context.annotations.path).toBe('wildcard-probe');
    expect(api.calls.bodies(subjectAccessReviewRouteName)[0]).toMatchObject({
      spec: {
        user: 'super',
        uid: 'u-1',
        groups: ['ops', 'system:authenticated'],
        extra: { 'authentication.kubernetes.io/credential-id': ['X509SHA256=abc'] },
        resourceAttributes: { verb: 'update', group: '*', version: '*', resource: '*', subresource: 'finalizers', name: '*' },
      },
    });
  });

  it('denied, discovery is loaded once and each owner checked: 1 probe + 10 SubjectAccessReviews', async () => {
    const authorizer = createClusterAuthorizer({ kubeConfig: api.kubeConfig });
    const mapper = createClusterRestMapper({ kubeConfig: api.kubeConfig });
    await ownerReferencesPermissionEnforcement(authorizer, mapper).validate(
      attributesFor({ username: 'non-node-deleter', resource: 'pods', newObj }),
      requestContext(),
    );
    await Promise.all([authorizer.close(), mapper.close()]);

    expect(api.calls.count(subjectAccessReviewRouteName)).toBe(11);
    // One discovery pass (/api, /apis, v1, apps/v1), however many owners.
    expect(discoveryCalls()).toBe(4);
  });

  it('a review with 10,000 owners, each its own, sends at most the per-request limit of reviews and is denied saying why', async () => {
    const authorizer = createClusterAuthorizer({ kubeConfig: api.kubeConfig, maxReviewsPerRequest: 100 });
    const mapper = createClusterRestMapper({ kubeConfig: api.kubeConfig });
    const owners = {
      metadata: {
        ownerReferences: Array.from(
          { length: 10_000 },
          (_, i): OwnerReference => ({
            apiVersion: 'v1',
            kind: 'ReplicationController',
            name: `rc-${i}`,
            uid: `uid-${i}`,
            blockOwnerDeletion: true,
          }),
        ),
      },
    };
    // non-node-deleter may finalize every ReplicationController: only the limit stops the questions.
    const error = await outcome(() =>
      ownerReferencesPermissionEnforcement(authorizer, mapper).validate(
        attributesFor({ username: 'non-node-deleter', resource: 'pods', newObj: owners }),
        requestContext(),
      ),
    );
    await Promise.all([authorizer.close(), mapper.close()]);

    expect(api.calls.count(subjectAccessReviewRouteName)).toBe(100);
    expect(error?.message).toBe(
      'pods "foo" is forbidden: cannot set blockOwnerDeletion if an ownerReference refers to a resource you can\'t set finalizers on: , too many SubjectAccessReviews for one admission request (more than 100)',
    );
    // Explained as the error it is, with no Role suggested for questions nobody answered.
    const explained = createExplainer().explain(explanationOf(error!)!, { mutatingPlugins: [] });
    expect(explained.objects).toEqual([]);
    expect(explained.warnings[0]).toMatch(
      /^the authorizer could not answer whether user "non-node-deleter" may update replicationcontrollers\/finalizers "rc-99" in namespace "default": too many SubjectAccessReviews for one admission request \(more than 100\); no Role is suggested/,
    );
  });
});
