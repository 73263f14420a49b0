// What the Namespace lookup asks of the API server, counted on the in-process stand-in: one LIST
// and no GET to fill the cache, no second LIST while the WATCH follows, a live GET on a miss while
// the WATCH is stalled, and a cluster backend for PodNodeSelector and PodTolerationRestriction that
// asks for namespaces and nothing else. What the lookup and the plugins answer is tested against a
// real kube-apiserver in test/control-plane/cluster-namespaces.test.ts.
import { afterEach, describe, expect, it } from 'vitest';
import { type ClusterLookups, createClusterLookups } from '../../src/adapters/cluster/lookups/lookups.ts';
import type { RequestContext } from '../../src/admission/attributes.ts';
import { createPlugin } from '../../src/admission/plugin.ts';
import type { Pod } from '../../src/api/core.ts';
import { definition as podNodeSelector } from '../../src/plugins/podnodeselector/index.ts';
import { definition as podTolerationRestriction } from '../../src/plugins/podtolerationrestriction/index.ts';
import { systemClock, systemRandom } from '../../src/ports/clock.ts';
import { silentLogger } from '../../src/ports/logger.ts';
import type { Backend } from '../../src/wiring/backend.ts';
import { createClusterBackend } from '../../src/wiring/cluster.ts';
import { namespaceType, type StandInApiServer, startStandInApiServer } from '../apiserver/index.ts';
import { podAttributes, requestContext } from '../support/attributes.ts';
import { eventually } from '../support/eventually.ts';

let api: StandInApiServer | undefined;
let lookups: ClusterLookups | undefined;
let backend: Backend | undefined;
afterEach(async () => {
  await lookups?.close();
  await backend?.close();
  await api?.close();
  api = lookups = backend = undefined;
});

const context = (signal = AbortSignal.timeout(5_000)): RequestContext => requestContext(signal);
const selectorAnnotation = 'scheduler.alpha.kubernetes.io/node-selector';

async function setUp(seed: (api: StandInApiServer) => void = () => {}) {
  api = await startStandInApiServer({ resources: [namespaceType] });
  seed(api);
  lookups = createClusterLookups({ kubeConfig: api.kubeConfig, resources: ['namespaces'], backoff: { initialMs: 20, maxMs: 200 } });
  await lookups.ready();
  return { api, lookups };
}

describe('what the namespace lookup asks of the API server', () => {
  it('one LIST fills the cache, with no GET; the WATCH follows changes with no second LIST', async () => {
    const { api, lookups } = await setUp((api) =>
      api.store.put(namespaceType, { metadata: { name: 'team-a', annotations: { [selectorAnnotation]: 'pool=a' } } }),
    );
    expect(lookups.namespaces!.cached('', 'team-a')?.metadata?.annotations).toEqual({ [selectorAnnotation]: 'pool=a' });
    expect(api.calls.count('list namespaces')).toBe(1);
    expect(api.calls.count('get namespaces')).toBe(0);
    api.store.put(namespaceType, { metadata: { name: 'team-a', annotations: { [selectorAnnotation]: 'pool=b' } } });
    api.store.put(namespaceType, { metadata: { name: 'team-new' } });
    await eventually(
      () => lookups.namespaces!.cached('', 'team-a')?.metadata?.annotations?.[selectorAnnotation] === 'pool=b',
      'the annotation change',
    );
    await eventually(() => lookups.namespaces!.cached('', 'team-new'), 'the new namespace');
    expect(api.calls.count('list namespaces')).toBe(1);
    expect(api.calls.count('get namespaces')).toBe(0);
  });

  it("a live read is one GET of the namespace's own path", async () => {
    const { api, lookups } = await setUp();
    api.inject('watch namespaces', { kind: 'hang' });
    api.store.put(namespaceType, { metadata: { name: 'fresh' } });
    expect(await lookups.namespaces!.live('', 'fresh', AbortSignal.timeout(5_000))).toMatchObject({
      kind: 'Namespace',
      metadata: { name: 'fresh' },
    });
    expect(await lookups.namespaces!.live('', 'missing')).toBeUndefined();
    expect(api.calls.requests('get namespaces').map((r) => r.path)).toEqual(['/api/v1/namespaces/fresh', '/api/v1/namespaces/missing']);
  });
});

describe('the cluster backend for the namespace plugins', () => {
  it('asks for namespaces only, even when a namespace it has not seen yet sends it to a live GET', async () => {
    api = await startStandInApiServer({ resources: [namespaceType] });
    api.store.put(namespaceType, { metadata: { name: 'team-a', annotations: { [selectorAnnotation]: 'pool=a' } } });
    const enabled = [podNodeSelector, podTolerationRestriction];
    backend = createClusterBackend(
      api.kubeConfig,
      {
        kind: 'cluster',
        requestTimeoutMs: 5_000,
        sarAllowedTtlMs: 0,
        sarDeniedTtlMs: 0,
        discoveryRefreshIntervalMs: 0,
        kubeconfig: undefined,
      },
      silentLogger,
      enabled,
    );
    await backend.ready();
    // Namespaces only: no SubjectAccessReview, discovery, or other caches (and so no RBAC for them).
    expect(api.calls.count('list namespaces')).toBe(1);
    expect(Object.keys(api.calls.counts()).filter((route) => !route.endsWith(' namespaces'))).toEqual([]);

    const ports = { ...backend.ports, clock: systemClock, random: systemRandom };
    api.inject('watch namespaces', { kind: 'hang' });
    api.store.put(namespaceType, { metadata: { name: 'team-b', annotations: { [selectorAnnotation]: 'pool=b' } } });
    const other: Pod = { metadata: { name: 'web', namespace: 'team-b' }, spec: {} };
    await createPlugin(podNodeSelector, ports, 'cluster').admit!(podAttributes({ namespace: 'team-b', object: other }), context());
    expect(other.spec!.nodeSelector).toEqual({ pool: 'b' });
    expect(Object.keys(api.calls.counts()).filter((route) => !route.endsWith(' namespaces'))).toEqual([]);
  });
});
