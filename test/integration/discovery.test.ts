// The cluster REST mapper against the stand-in API server's discovery endpoints, through the real
// @kubernetes/client-node: loading, caching, refresh on a miss (rate-limited, one in flight), and
// discovery that is slow, down, or down for one group version only.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type ClusterRestMapper,
  type ClusterRestMapperOptions,
  createClusterRestMapper,
} from '../../src/adapters/cluster/rest-mapping/rest-mapper.ts';
import type { APIResourceList } from '../../src/adapters/local/cluster-state.ts';
import { isStatusError } from '../../src/api/status-error.ts';
import { ownerReferencesPermissionEnforcement } from '../../src/plugins/ownerreferences/index.ts';
import { attributesFor } from '../../src/plugins/ownerreferences/testdata/upstream-cases.ts';
import type { Clock } from '../../src/ports/clock.ts';
import {
  coreVersionsRoute,
  groupListRoute,
  groupVersionRoute,
  type ServedDiscovery,
  serveDiscovery,
} from '../apiserver/discovery-routes.ts';
import { type StandInApiServer, startStandInApiServer } from '../apiserver/index.ts';
import { requestContext } from '../support/attributes.ts';
import { loadFixtureClusterState } from '../support/cluster-state.ts';

const widgets: APIResourceList = {
  apiVersion: 'v1',
  kind: 'APIResourceList',
  groupVersion: 'example.com/v1',
  resources: [
    { name: 'widgets', namespaced: false, kind: 'Widget' },
    { name: 'widgets/status', namespaced: false, kind: 'Widget' },
  ],
};

/** A clock the test moves by hand, so "once per interval" is tested without waiting. */
function manualClock(): Clock & { advance(ms: number): void } {
  let now = 1_000_000;
  return {
    now: () => now,
    sleep: async () => {},
    advance: (ms) => {
      now += ms;
    },
  };
}

let api: StandInApiServer;
let discovery: ServedDiscovery;
let mapper: ClusterRestMapper | undefined;
let clock: ReturnType<typeof manualClock>;

beforeEach(async () => {
  api = await startStandInApiServer();
  discovery = serveDiscovery(api, loadFixtureClusterState('ownerreferences/cluster-state.yaml').apiResourceLists);
  clock = manualClock();
});
afterEach(async () => {
  await mapper?.close();
  mapper = undefined;
  await api.close();
});

function newMapper(options: Partial<ClusterRestMapperOptions> = {}): ClusterRestMapper {
  mapper = createClusterRestMapper({ kubeConfig: api.kubeConfig, refreshIntervalMs: 30_000, clock, ...options });
  return mapper;
}

const passes = () => api.calls.count(groupListRoute);
const discoveryCalls = () => discovery.routeNames().reduce((sum, name) => sum + api.calls.count(name), 0);

/** The error an answer was rejected with (an answer given directly is not a rejection). */
async function rejection(answer: unknown): Promise<Error> {
  try {
    await answer;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}

describe('cluster REST mapper: loading and caching', () => {
  it('ready() loads /api, /apis and every group version once; later lookups are served from the cache', async () => {
    const m = newMapper();
    await m.ready();
    expect(api.calls.counts()).toEqual({
      [coreVersionsRoute]: 1,
      [groupListRoute]: 1,
      [groupVersionRoute('v1')]: 1,
      [groupVersionRoute('apps/v1')]: 1,
    });

    expect(await m.mappingsFor({ group: '', kind: 'ReplicationController' }, ['v1'])).toEqual([
      {
        resource: { group: '', version: 'v1', resource: 'replicationcontrollers' },
        groupVersionKind: { group: '', version: 'v1', kind: 'ReplicationController' },
        scope: 'namespace',
      },
    ]);
    expect((await m.mappingsFor({ group: '', kind: 'Node' }, ['v1']))[0]?.scope).toBe('root');
    expect((await m.mappingsFor({ group: 'apps', kind: 'DaemonSet' }, ['v1']))[0]?.resource).toEqual({
      group: 'apps',
      version: 'v1',
      resource: 'daemonsets',
    });
    expect(discoveryCalls()).toBe(4);
    // A kind discovery knows is answered from what it holds, without asking again.
    await m.mappingsFor({ group: 'apps', kind: 'DaemonSet' }, ['v1']);
    expect(discoveryCalls()).toBe(4);
    const unknownKind = m.mappingsFor({ group: 'example.com', kind: 'Widget' }, ['v1']);
    expect((await rejection(unknownKind)).message).toBe('no matches for kind "Widget" in version "example.com/v1"');
  });

  it('loads lazily on the first lookup when ready() was never called', async () => {
    const m = newMapper();
    expect((await m.mappingsFor({ group: '', kind: 'Pod' }, ['v1'], AbortSignal.timeout(5000)))[0]?.resource.resource).toBe('pods');
    expect(passes()).toBe(1);
  });

  it('ignores subresources listed by discovery', async () => {
    const m = newMapper();
    await m.ready();
    await expect(m.mappingsFor({ group: '', kind: 'Binding' }, ['v1'])).rejects.toThrow('no matches for kind "Binding" in version "v1"');
  });
});

describe('cluster REST mapper: refresh on a miss', () => {
  it('refreshes on a miss and finds a group installed since (a new CRD)', async () => {
    const m = newMapper();
    await m.ready();
    discovery.add(widgets);
    clock.advance(30_000);
    const [mapping] = await m.mappingsFor({ group: 'example.com', kind: 'Widget' }, ['v1'], AbortSignal.timeout(5000));
    expect(mapping).toMatchObject({ resource: { group: 'example.com', version: 'v1', resource: 'widgets' }, scope: 'root' });
    expect(passes()).toBe(2);
  });

  it('refreshes at most once per interval: a second miss inside it answers NoKindMatch without a call', async () => {
    const m = newMapper();
    await m.ready();
    clock.advance(30_000);
    await expect(m.mappingsFor({ group: 'example.com', kind: 'Widget' }, ['v1'])).rejects.toThrow(
      'no matches for kind "Widget" in version "example.com/v1"',
    );
    expect(passes()).toBe(2);
    // The miss answered as soon as /apis showed no such group; let the rest of the pass finish.
    await m.idle();

    discovery.add(widgets);
    clock.advance(29_999);
    await expect(m.mappingsFor({ group: 'example.com', kind: 'Widget' }, ['v1'])).rejects.toThrow(
      'no matches for kind "Widget" in version "example.com/v1"',
    );
    expect(passes()).toBe(2);

    clock.advance(1);
    await expect(m.mappingsFor({ group: 'example.com', kind: 'Widget' }, ['v1'])).resolves.toHaveLength(1);
    expect(passes()).toBe(3);
  });

  it('never runs more than one refresh: 20 concurrent misses share one discovery pass', async () => {
    const m = newMapper();
    await m.ready();
    discovery.add(widgets);
    clock.advance(30_000);
    api.inject(groupListRoute, { kind: 'latency', ms: 100 }, { times: 1 });
    const results = await Promise.all(
      Array.from({ length: 20 }, () => m.mappingsFor({ group: 'example.com', kind: 'Widget' }, ['v1'], AbortSignal.timeout(5000))),
    );
    expect(results.every((r) => r[0]?.resource.resource === 'widgets')).toBe(true);
    expect(passes()).toBe(2);
    expect(api.calls.count(groupVersionRoute('example.com/v1'))).toBe(1);
  });

  it('a hit never refreshes, however old the cache', async () => {
    const m = newMapper();
    await m.ready();
    clock.advance(10 * 60_000);
    await m.mappingsFor({ group: '', kind: 'Pod' }, ['v1']);
    expect(passes()).toBe(1);
  });
});

describe('cluster REST mapper: slow, down and partial discovery', () => {
  it("a hanging discovery endpoint is bounded by the caller's deadline, and the plugin denies promptly", async () => {
    api.inject(groupListRoute, { kind: 'hang' });
    const m = newMapper();
    const started = Date.now();
    const error = await rejection(m.mappingsFor({ group: 'apps', kind: 'DaemonSet' }, ['v1'], AbortSignal.timeout(300)));
    expect(Date.now() - started).toBeLessThan(2000);
    expect(error.message).toBe(`Get "${api.url}/apis": context deadline exceeded`);

    // Through the plugin: upstream's mapping Forbidden, not a hung admission request.
    clock.advance(30_000);
    const plugin = ownerReferencesPermissionEnforcement({ authorize: async () => ({ decision: 'no-opinion', reason: '' }) }, m);
    const newObj = {
      metadata: { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'ds1', uid: 'u1', blockOwnerDeletion: true }] },
    };
    const t0 = Date.now();
    const denial = await rejection(
      Promise.resolve(
        plugin.validate(attributesFor({ username: 'jane', resource: 'pods', newObj }), requestContext(AbortSignal.timeout(300))),
      ),
    );
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(isStatusError(denial) && denial.status.code).toBe(403);
    expect(denial.message).toBe(
      `pods "foo" is forbidden: cannot set blockOwnerDeletion in this case because cannot find RESTMapping for APIVersion apps/v1 Kind DaemonSet: Get "${api.url}/apis": context deadline exceeded`,
    );
  });

  it('one caller giving up does not cancel the refresh the others are waiting for', async () => {
    const m = newMapper();
    await m.ready();
    api.inject(groupListRoute, { kind: 'latency', ms: 400 });
    clock.advance(30_000);
    discovery.add(widgets);
    const impatient = new AbortController();
    const first = m.mappingsFor({ group: 'example.com', kind: 'Widget' }, ['v1'], impatient.signal);
    const second = m.mappingsFor({ group: 'example.com', kind: 'Widget' }, ['v1'], AbortSignal.timeout(5000));
    setTimeout(() => impatient.abort(new Error('client closed the connection')), 50);
    await expect(first).rejects.toThrow();
    const mappings = await second;
    expect(mappings.map((x) => x.resource.resource)).toEqual(['widgets']);
    expect(passes()).toBe(2); // the initial load and the one shared refresh
  });

  it('a refresh without a caller deadline is bounded by refreshTimeoutMs', async () => {
    api.inject(groupListRoute, { kind: 'hang' });
    api.inject(coreVersionsRoute, { kind: 'hang' });
    const m = newMapper({ refreshTimeoutMs: 300 });
    const started = Date.now();
    const error = await rejection(m.ready());
    expect(Date.now() - started).toBeLessThan(2000);
    expect(error.message).toContain('context deadline exceeded');
  });

  it("discovery down entirely: ready() rejects with the server's error, lookups fail with it", async () => {
    api.inject(groupListRoute, { kind: 'server-error', code: 503, message: 'service unavailable' });
    api.inject(coreVersionsRoute, { kind: 'server-error', code: 503, message: 'service unavailable' });
    const m = newMapper();
    await expect(m.ready()).rejects.toThrow('service unavailable');
    await expect(m.mappingsFor({ group: '', kind: 'Pod' }, ['v1'])).rejects.toThrow('service unavailable');
  });

  it('one group version hanging does not hold up a lookup in another group', async () => {
    const m = newMapper();
    await m.ready();
    discovery.add(widgets);
    api.inject(groupVersionRoute('v1'), { kind: 'hang' });
    clock.advance(30_000);
    const started = Date.now();
    expect((await m.mappingsFor({ group: 'example.com', kind: 'Widget' }, ['v1'], AbortSignal.timeout(5000)))[0]?.resource.resource).toBe(
      'widgets',
    );
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('one group version down: the others still map; the failed one misses until it recovers', async () => {
    const lift = api.inject(groupVersionRoute('apps/v1'), {
      kind: 'server-error',
      code: 503,
      message: 'the server is currently unable to handle the request',
    });
    const m = newMapper();
    await m.ready();
    expect((await m.mappingsFor({ group: '', kind: 'Node' }, ['v1']))[0]?.resource.resource).toBe('nodes');
    await expect(m.mappingsFor({ group: 'apps', kind: 'DaemonSet' }, ['v1'])).rejects.toThrow(
      'no matches for kind "DaemonSet" in version "apps/v1"',
    );

    lift();
    await m.idle();
    clock.advance(30_000);
    expect((await m.mappingsFor({ group: 'apps', kind: 'DaemonSet' }, ['v1']))[0]?.resource.resource).toBe('daemonsets');
  });

  it('/apis down while /api answers: core kinds still map', async () => {
    api.inject(groupListRoute, { kind: 'drop-connection' });
    const m = newMapper();
    await m.ready();
    expect((await m.mappingsFor({ group: '', kind: 'Pod' }, ['v1']))[0]?.resource.resource).toBe('pods');
    // client-go reports the failed group listing rather than a NoKindMatch for non-core groups.
    await expect(m.mappingsFor({ group: 'apps', kind: 'DaemonSet' }, ['v1'])).rejects.toThrow(`Get "${api.url}/apis": `);
  });

  it('a group version failing on a later refresh keeps its last known resources', async () => {
    const m = newMapper();
    await m.ready();
    discovery.add(widgets);
    api.inject(groupVersionRoute('apps/v1'), { kind: 'server-error' });
    api.inject(groupVersionRoute('v1'), { kind: 'hang' });
    clock.advance(30_000);
    expect((await m.mappingsFor({ group: 'example.com', kind: 'Widget' }, ['v1'], AbortSignal.timeout(500)))[0]?.resource.resource).toBe(
      'widgets',
    );
    expect((await m.mappingsFor({ group: 'apps', kind: 'DaemonSet' }, ['v1']))[0]?.resource.resource).toBe('daemonsets');
    expect((await m.mappingsFor({ group: '', kind: 'ReplicationController' }, ['v1']))[0]?.resource.resource).toBe(
      'replicationcontrollers',
    );
  });
});
