// The Prometheus recorders and port decorators, driven by the real adapters: the cluster
// authorizer through client-node against the stand-in API server, the local lookups over a
// cluster-state file, and the embedded RBAC evaluator.
import { afterEach, describe, expect, it } from 'vitest';
import { type ClusterAuthorizer, createClusterAuthorizer } from '../../src/adapters/cluster/authorization/authorizer.ts';
import { parseClusterState } from '../../src/adapters/local/cluster-state.ts';
import { createLocalLookups } from '../../src/adapters/local/lookups.ts';
import { createRbacAuthorizer } from '../../src/adapters/local/rbac/index.ts';
import { discoveryRecorder } from '../../src/observability/discovery-metrics.ts';
import { instrumentAuthorizer } from '../../src/observability/instrument-authorizer.ts';
import { instrumentLookups } from '../../src/observability/instrument-lookups.ts';
import { informerRecorder } from '../../src/observability/lookup-metrics.ts';
import { createMetrics } from '../../src/observability/metrics.ts';
import type { AuthorizationAttributes } from '../../src/ports/authorizer.ts';
import { ruleTableAuthorizer, type StandInApiServer, startStandInApiServer, subjectAccessReviewRouteName } from '../apiserver/index.ts';
import { sampleValue } from './samples.ts';

const allowGet = {
  matches: (a: AuthorizationAttributes) => a.resourceAttributes?.verb === 'get',
  result: { decision: 'allow', reason: 'allowed' },
} as const;

function question(name: string, verb = 'get'): AuthorizationAttributes {
  return {
    user: { username: 'alice', groups: ['dev'] },
    resourceAttributes: { namespace: 'team-a', verb, group: '', version: 'v1', resource: 'pods', name },
  };
}

describe('authorization recorder with the cluster authorizer', () => {
  let api: StandInApiServer | undefined;
  let authorizer: ClusterAuthorizer | undefined;
  afterEach(async () => {
    await authorizer?.close();
    await api?.close();
    api = authorizer = undefined;
  });

  it('counts misses, hits, singleflight joins and SubjectAccessReview calls by code and outcome', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    api = await startStandInApiServer({ authorizer: ruleTableAuthorizer([allowGet]) });
    authorizer = createClusterAuthorizer({ kubeConfig: api.kubeConfig, recorder: metrics.recorders.authorization, initialBackoffMs: 5 });

    // Five identical questions at once: one call on the wire, four joins.
    await Promise.all(Array.from({ length: 5 }, () => authorizer!.authorize(question('web'))));
    await authorizer.authorize(question('web'));
    await authorizer.authorize(question('web', 'delete'));

    const { registry } = metrics;
    expect(await sampleValue(registry, 'admission_chain_authorization_cache_requests_total', { status: 'miss' })).toBe(6);
    expect(await sampleValue(registry, 'admission_chain_authorization_cache_requests_total', { status: 'hit' })).toBe(1);
    expect(await sampleValue(registry, 'admission_chain_authorization_singleflight_joins_total')).toBe(4);
    expect(await sampleValue(registry, 'admission_chain_delegated_authz_request_total', { code: '201', outcome: 'allowed' })).toBe(1);
    expect(await sampleValue(registry, 'admission_chain_delegated_authz_request_total', { code: '201', outcome: 'no-opinion' })).toBe(1);
    expect(await sampleValue(registry, 'admission_chain_delegated_authz_request_duration_seconds_count', { code: '201' })).toBe(2);
    expect(api.calls.count(subjectAccessReviewRouteName)).toBe(2);
  });

  it('times each answer from question to answer, a cached one as well as a fetched one, and counts both', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    api = await startStandInApiServer({ authorizer: ruleTableAuthorizer([allowGet]) });
    authorizer = createClusterAuthorizer({ kubeConfig: api.kubeConfig, recorder: metrics.recorders.authorization });
    // The clock's readings, in milliseconds: the fetched answer takes 3, the cached one none.
    const readings = [0, 3, 10, 10];
    const instrumented = instrumentAuthorizer(authorizer, metrics.authorization, () => readings.shift()!);

    const fetched = await instrumented.authorize(question('web'));
    expect(fetched.decision).toBe('allow');
    expect(readings).toEqual([10, 10]);

    expect(await instrumented.authorize(question('web'))).toEqual(fetched);
    expect(readings).toEqual([]);

    const { registry } = metrics;
    expect(await sampleValue(registry, 'admission_chain_authorization_decisions_total', { decision: 'allow' })).toBe(2);
    expect(await sampleValue(registry, 'admission_chain_authorization_duration_seconds_count', { decision: 'allow' })).toBe(2);
    expect(await sampleValue(registry, 'admission_chain_authorization_duration_seconds_sum', { decision: 'allow' })).toBeCloseTo(0.003, 9);
    // The second answer came from the cache.
    expect(api.calls.count(subjectAccessReviewRouteName)).toBe(1);
  });

  it('counts background refreshes of answers about to expire', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    let now = 0;
    const clock = { now: () => now, sleep: async () => {} };
    api = await startStandInApiServer({ authorizer: ruleTableAuthorizer([allowGet]) });
    authorizer = createClusterAuthorizer({
      kubeConfig: api.kubeConfig,
      recorder: metrics.recorders.authorization,
      clock,
      allowedTtlMs: 1_000,
    });
    await authorizer.authorize(question('web'));
    now = 900;
    await authorizer.authorize(question('web'));
    await expect
      .poll(() => sampleValue(metrics.registry, 'admission_chain_authorization_cache_refreshes_total', { result: 'success' }))
      .toBe(1);
    expect(api.calls.count(subjectAccessReviewRouteName)).toBe(2);
  });

  it('counts every failed attempt, retries included, by status code', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    api = await startStandInApiServer({ authorizer: ruleTableAuthorizer([allowGet]) });
    authorizer = createClusterAuthorizer({
      kubeConfig: api.kubeConfig,
      recorder: metrics.recorders.authorization,
      initialBackoffMs: 1,
      maxAttempts: 3,
    });
    api.inject(subjectAccessReviewRouteName, { kind: 'server-error', code: 500 });

    const result = await authorizer.authorize(question('web'));
    expect(result.decision).toBe('no-opinion');
    expect(await sampleValue(metrics.registry, 'admission_chain_delegated_authz_request_total', { code: '500', outcome: 'error' })).toBe(3);
    expect(
      await sampleValue(metrics.registry, 'admission_chain_delegated_authz_request_total', { code: '201', outcome: 'allowed' }),
    ).toBeUndefined();
  });

  it('folds unexpected codes into "other" so a label never grows without bound', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    metrics.recorders.authorization.requestCompleted({ outcome: 'error', code: 'ECONNREFUSED 10.0.0.1:443', durationSeconds: 0.01 });
    metrics.recorders.authorization.requestCompleted({ outcome: 'error', code: 'timeout', durationSeconds: 0.01 });
    expect(await sampleValue(metrics.registry, 'admission_chain_delegated_authz_request_total', { code: 'other', outcome: 'error' })).toBe(
      1,
    );
    expect(
      await sampleValue(metrics.registry, 'admission_chain_delegated_authz_request_total', { code: 'timeout', outcome: 'error' }),
    ).toBe(1);
  });
});

describe('instrumentAuthorizer over the embedded RBAC evaluator', () => {
  it('counts what plugins were told and times it', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const rbac = createRbacAuthorizer({
      roles: [],
      roleBindings: [],
      clusterRoles: [{ metadata: { name: 'pod-reader' }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] }],
      clusterRoleBindings: [
        {
          metadata: { name: 'devs' },
          subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'dev' }],
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'pod-reader' },
        },
      ],
    });
    let clock = 0;
    const authorizer = instrumentAuthorizer(rbac, metrics.authorization, () => (clock += 2));
    expect((await authorizer.authorize(question('web'))).decision).toBe('allow');
    expect((await authorizer.authorize(question('web', 'delete'))).decision).toBe('no-opinion');
    expect(await sampleValue(metrics.registry, 'admission_chain_authorization_decisions_total', { decision: 'allow' })).toBe(1);
    expect(await sampleValue(metrics.registry, 'admission_chain_authorization_decisions_total', { decision: 'no-opinion' })).toBe(1);
    expect(await sampleValue(metrics.registry, 'admission_chain_authorization_duration_seconds_sum', { decision: 'allow' })).toBeCloseTo(
      0.002,
      9,
    );
  });
});

describe('instrumentLookups over the local cluster state', () => {
  const state = parseClusterState(`
apiVersion: v1
kind: ServiceAccount
metadata: { name: builder, namespace: ci }
---
apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata: { name: gvisor }
handler: runsc
`);

  it('counts cache hits and misses, live hits and NotFound, and retries after NotFound', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    let now = 0;
    const lookups = instrumentLookups(createLocalLookups(state), metrics.recorders.lookups, { now: () => now, retryWindowMs: 500 });

    expect(lookups.serviceAccounts.cached('ci', 'builder')?.metadata?.name).toBe('builder');
    expect(lookups.serviceAccounts.cached('ci', 'default')).toBeUndefined();
    // ServiceAccount's wait for `default`: NotFound, then again 150 ms later (a retry), and again.
    expect(await lookups.serviceAccounts.live('ci', 'default')).toBeUndefined();
    now += 150;
    expect(await lookups.serviceAccounts.live('ci', 'default')).toBeUndefined();
    now += 150;
    expect(await lookups.serviceAccounts.live('ci', 'default')).toBeUndefined();
    // Long after: a new question, not a retry.
    now += 10_000;
    expect(await lookups.serviceAccounts.live('ci', 'default')).toBeUndefined();
    expect((await lookups.runtimeClasses.live('', 'gvisor'))?.metadata?.name).toBe('gvisor');

    const { registry } = metrics;
    const lookupsOf = (labels: Record<string, string>) => sampleValue(registry, 'admission_chain_lookups_total', labels);
    expect(await lookupsOf({ resource: 'serviceaccounts', source: 'cache', result: 'hit' })).toBe(1);
    expect(await lookupsOf({ resource: 'serviceaccounts', source: 'cache', result: 'miss' })).toBe(1);
    expect(await lookupsOf({ resource: 'serviceaccounts', source: 'live', result: 'not_found' })).toBe(4);
    expect(await lookupsOf({ resource: 'runtimeclasses', source: 'live', result: 'hit' })).toBe(1);
    expect(await sampleValue(registry, 'admission_chain_lookup_retries_total', { resource: 'serviceaccounts' })).toBe(2);
    expect(
      await sampleValue(registry, 'admission_chain_lookup_live_duration_seconds_count', { resource: 'runtimeclasses', result: 'hit' }),
    ).toBe(1);
  });

  it("counts node cache reads, and passes a cache's readiness wait on uncounted", async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const nodeState = parseClusterState(
      'apiVersion: v1\nkind: Node\nmetadata: { name: n1, labels: { topology.kubernetes.io/zone: z1 } }\n',
    );
    const local = createLocalLookups(nodeState);
    const waits: number[] = [];
    const syncing = {
      ...local,
      nodes: {
        ...local.nodes,
        synced: async (waitMs: number) => {
          waits.push(waitMs);
          return true;
        },
      },
    };
    const lookups = instrumentLookups(syncing, metrics.recorders.lookups);
    expect(lookups.nodes.cached('', 'n1')?.metadata?.labels).toEqual({ 'topology.kubernetes.io/zone': 'z1' });
    expect(lookups.nodes.cached('', 'n2')).toBeUndefined();
    expect(await lookups.nodes.synced?.(10_000, new AbortController().signal)).toBe(true);
    expect(waits).toEqual([10_000]);
    expect(instrumentLookups(local, metrics.recorders.lookups).nodes.synced).toBeUndefined();
    const { registry } = metrics;
    expect(await sampleValue(registry, 'admission_chain_lookups_total', { resource: 'nodes', source: 'cache', result: 'hit' })).toBe(1);
    expect(await sampleValue(registry, 'admission_chain_lookups_total', { resource: 'nodes', source: 'cache', result: 'miss' })).toBe(1);
  });

  it('counts a failing live read as an error and rethrows it', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const local = createLocalLookups(state);
    const failing = {
      ...local,
      secrets: { cached: local.secrets.cached, live: async () => Promise.reject(new Error('connection refused')) },
    };
    const lookups = instrumentLookups(failing, metrics.recorders.lookups);
    await expect(lookups.secrets.live('ci', 'token')).rejects.toThrow('connection refused');
    expect(
      await sampleValue(metrics.registry, 'admission_chain_lookups_total', { resource: 'secrets', source: 'live', result: 'error' }),
    ).toBe(1);
  });
});

describe('discovery recorder', () => {
  it('counts refreshes by result and stamps only complete ones', async () => {
    let now = 1_700_000_000_000;
    const metrics = createMetrics({ defaultMetrics: false });
    const { registry } = metrics;
    // All results exist at zero before the first refresh, so rate() works from the start.
    expect(await sampleValue(registry, 'admission_chain_discovery_refreshes_total', { result: 'error' })).toBe(0);
    const recorder = discoveryRecorder(metrics.discovery, () => now);
    recorder.refreshCompleted({ result: 'success', durationSeconds: 0.02 });
    now += 60_000;
    recorder.refreshCompleted({ result: 'partial', durationSeconds: 0.03 });
    recorder.refreshCompleted({ result: 'error', durationSeconds: 0.5 });
    expect(await sampleValue(registry, 'admission_chain_discovery_refreshes_total', { result: 'success' })).toBe(1);
    expect(await sampleValue(registry, 'admission_chain_discovery_refreshes_total', { result: 'partial' })).toBe(1);
    expect(await sampleValue(registry, 'admission_chain_discovery_refreshes_total', { result: 'error' })).toBe(1);
    expect(await sampleValue(registry, 'admission_chain_discovery_last_success_timestamp_seconds')).toBe(1_700_000_000);
  });
});

describe('informer recorder', () => {
  it('counts LISTs, failures and restarts by resource and reason, and stamps the last LIST', async () => {
    let now = 1_700_000_000_000;
    const metrics = createMetrics({ defaultMetrics: false });
    const recorder = informerRecorder(metrics.lookups, () => now);
    recorder.informerList('secrets');
    recorder.informerError('secrets');
    now += 30_000;
    recorder.informerRestart('secrets', 'error');
    recorder.informerList('secrets');
    recorder.informerRestart('runtimeclasses', 'stall');
    const { registry } = metrics;
    expect(await sampleValue(registry, 'admission_chain_informer_lists_total', { resource: 'secrets' })).toBe(2);
    expect(await sampleValue(registry, 'admission_chain_informer_errors_total', { resource: 'secrets' })).toBe(1);
    expect(await sampleValue(registry, 'admission_chain_informer_restarts_total', { resource: 'secrets', reason: 'error' })).toBe(1);
    expect(await sampleValue(registry, 'admission_chain_informer_restarts_total', { resource: 'runtimeclasses', reason: 'stall' })).toBe(1);
    expect(await sampleValue(registry, 'admission_chain_informer_last_list_timestamp_seconds', { resource: 'secrets' })).toBe(
      1_700_000_030,
    );
    expect(
      await sampleValue(registry, 'admission_chain_informer_last_list_timestamp_seconds', { resource: 'runtimeclasses' }),
    ).toBeUndefined();
  });
});
