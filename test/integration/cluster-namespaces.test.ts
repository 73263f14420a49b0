// The in-cluster Namespace lookup through the real @kubernetes/client-node against the in-process
// stand-in API server (real REST: LIST, WATCH, GET with NotFound as a Status): names and annotations
// cached, nothing else held; live GETs on a miss; readiness; the cluster backend starting only the
// namespace cache for PodNodeSelector and PodTolerationRestriction; and both plugins on top.
import { afterEach, describe, expect, it } from 'vitest';
import { createClusterLookups, type ClusterLookups } from '../../src/adapters/cluster/lookups.ts';
import type { RequestContext } from '../../src/admission/attributes.ts';
import { isStatusError, StatusError } from '../../src/api/status-error.ts';
import type { Pod } from '../../src/api/core.ts';
import { createClusterBackend } from '../../src/wiring/cluster.ts';
import { createPlugin } from '../../src/admission/plugin.ts';
import { systemClock, systemRandom } from '../../src/ports/clock.ts';
import { silentLogger } from '../../src/ports/logger.ts';
import { definition as podNodeSelector } from '../../src/plugins/podnodeselector/index.ts';
import { definition as podTolerationRestriction } from '../../src/plugins/podtolerationrestriction/index.ts';
import { namespaceType, startStandInApiServer, type StandInApiServer } from '../apiserver/index.ts';
import { podAttributes, requestContext } from '../support/attributes.ts';
import type { Backend } from '../../src/wiring/backend.ts';
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

describe('namespace lookups on the cluster backend', () => {
  it('caches names and annotations from the LIST (last-applied-configuration and labels dropped), with no GET', async () => {
    const { api, lookups } = await setUp((api) =>
      api.store.put(namespaceType, {
        metadata: {
          name: 'team-a',
          labels: { tier: 'gold' },
          annotations: { [selectorAnnotation]: 'pool=a', 'kubectl.kubernetes.io/last-applied-configuration': '{"big":"blob"}' },
        },
        spec: { finalizers: ['kubernetes'] },
        status: { phase: 'Active' },
      }),
    );
    expect(lookups.namespaces!.cached('', 'team-a')).toEqual({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'team-a', uid: expect.any(String), resourceVersion: expect.any(String), annotations: { [selectorAnnotation]: 'pool=a' } },
    });
    expect(lookups.namespaces!.cached('', 'team-b')).toBeUndefined();
    expect(api.calls.count('list namespaces')).toBe(1);
    expect(api.calls.count('get namespaces')).toBe(0);
    expect(lookups.notReadyReasons()).toEqual([]);
  });

  it('follows annotation changes and new namespaces through the WATCH', async () => {
    const { api, lookups } = await setUp((api) => api.store.put(namespaceType, { metadata: { name: 'team-a' } }));
    api.store.put(namespaceType, { metadata: { name: 'team-a', annotations: { [selectorAnnotation]: 'pool=b' } } });
    api.store.put(namespaceType, { metadata: { name: 'team-new' } });
    await eventually(() => lookups.namespaces!.cached('', 'team-a')?.metadata?.annotations?.[selectorAnnotation] === 'pool=b', 'the annotation change');
    await eventually(() => lookups.namespaces!.cached('', 'team-new'), 'the new namespace');
    expect(api.calls.count('list namespaces')).toBe(1);
  });

  it('reads live on a miss: the namespace, or undefined for the server\'s NotFound', async () => {
    const { api, lookups } = await setUp();
    api.inject('watch namespaces', { kind: 'hang' });
    api.store.put(namespaceType, { metadata: { name: 'fresh' } });
    expect(await lookups.namespaces!.live('', 'fresh', AbortSignal.timeout(5_000))).toMatchObject({ kind: 'Namespace', metadata: { name: 'fresh' } });
    expect(await lookups.namespaces!.live('', 'missing')).toBeUndefined();
    expect(api.calls.requests('get namespaces').map((r) => r.path)).toEqual(['/api/v1/namespaces/fresh', '/api/v1/namespaces/missing']);
  });

  it('a live read that fails otherwise is a StatusError with the server\'s code', async () => {
    const { api, lookups } = await setUp();
    api.inject('get namespaces', { kind: 'status', code: 403, message: 'namespaces "x" is forbidden: no' }, { times: 1 });
    let failure: unknown;
    try {
      await lookups.namespaces!.live('', 'x');
    } catch (error) {
      failure = error;
    }
    expect(failure).toBeInstanceOf(StatusError);
    expect((failure as StatusError).code).toBe(403);
  });
});

describe('the cluster backend for the namespace plugins', () => {
  it('starts only the namespace cache, and PodNodeSelector and PodTolerationRestriction work on top', async () => {
    api = await startStandInApiServer({ resources: [namespaceType] });
    api.store.put(namespaceType, {
      metadata: {
        name: 'team-a',
        annotations: {
          [selectorAnnotation]: 'pool=a',
          'scheduler.alpha.kubernetes.io/defaultTolerations': '[{"key":"pool","operator":"Equal","value":"a","effect":"NoSchedule"}]',
          'scheduler.alpha.kubernetes.io/tolerationsWhitelist': '[{"key":"pool","operator":"Exists"}]',
        },
      },
    });
    const enabled = [podNodeSelector, podTolerationRestriction];
    backend = createClusterBackend(api.kubeConfig, { requestTimeoutMs: 5_000, sarAllowedTtlMs: 0, sarDeniedTtlMs: 0, discoveryRefreshIntervalMs: 0, clusterState: undefined, kubeconfig: undefined }, silentLogger, enabled);
    await backend.ready();
    // Namespaces only: no SubjectAccessReview, discovery, or other caches (and so no RBAC for them).
    expect(api.calls.count('list namespaces')).toBe(1);
    expect(Object.keys(api.calls.counts()).filter((route) => !route.endsWith(' namespaces'))).toEqual([]);

    const ports = { ...backend.ports, clock: systemClock, random: systemRandom };
    const pod: Pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'team-a' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };
    const attributes = podAttributes({ namespace: 'team-a', name: 'web', object: pod });
    for (const definition of enabled) await createPlugin(definition, ports, 'cluster').admit!(attributes, context());
    expect(pod.spec).toMatchObject({ nodeSelector: { pool: 'a' }, tolerations: [{ key: 'pool', operator: 'Equal', value: 'a', effect: 'NoSchedule' }] });

    // A namespace created a moment ago, not yet in the cache: one live GET finds it.
    api.inject('watch namespaces', { kind: 'hang' });
    api.store.put(namespaceType, { metadata: { name: 'team-b', annotations: { [selectorAnnotation]: 'pool=b' } } });
    const other: Pod = { metadata: { name: 'web', namespace: 'team-b' }, spec: {} };
    await createPlugin(podNodeSelector, ports, 'cluster').admit!(podAttributes({ namespace: 'team-b', object: other }), context());
    expect(other.spec!.nodeSelector).toEqual({ pool: 'b' });

    // One that does not exist at all: upstream's answers.
    const errors = [];
    for (const plugin of enabled) {
      try {
        await createPlugin(plugin, ports, 'cluster').admit!(podAttributes({ namespace: 'gone', object: { spec: { tolerations: [{ key: 'x', operator: 'Exists' }] } } }), context());
      } catch (error) {
        if (!isStatusError(error)) throw error;
        errors.push(error.status.message);
      }
    }
    expect(errors).toEqual(['Internal error occurred: namespace gone does not exist', 'namespaces "gone" not found']);
  });
});
