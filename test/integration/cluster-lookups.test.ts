// The in-cluster Lookups through the real @kubernetes/client-node against the in-process stand-in
// API server, for what a real kube-apiserver cannot be made to do: the query a WATCH was sent with,
// a live read failing with 500, hanging past the caller's signal or the lookup's own timeout,
// recovery from a dropped watch connection (through a TCP proxy that cuts it), from a hanging watch
// or LIST (the watchdog relists) and from a LIST that keeps failing, and a clean shutdown with calls
// hanging. The rest runs against a real kube-apiserver in test/control-plane/cluster-lookups.test.ts.
import { afterEach, describe, expect, it } from 'vitest';
import { type ClusterLookups, type ClusterLookupsOptions, createClusterLookups } from '../../src/adapters/cluster/lookups/lookups.ts';
import { isStatusError, type StatusError } from '../../src/api/status-error.ts';
import { instrumentLookups } from '../../src/observability/instrument-lookups.ts';
import { type ResourceType, type StandInApiServer, startStandInApiServer } from '../apiserver/index.ts';
import { startTcpProxy, type TcpProxy } from '../apiserver/tcp-proxy.ts';
import { eventually } from '../support/eventually.ts';
import { recordingLogger } from '../support/log.ts';
import { LookupEventRecorder } from '../support/recorders.ts';

const serviceAccountType: ResourceType = {
  group: '',
  version: 'v1',
  resource: 'serviceaccounts',
  kind: 'ServiceAccount',
  namespaced: true,
};
const secretType: ResourceType = { group: '', version: 'v1', resource: 'secrets', kind: 'Secret', namespaced: true };
const runtimeClassType: ResourceType = {
  group: 'node.k8s.io',
  version: 'v1',
  resource: 'runtimeclasses',
  kind: 'RuntimeClass',
  namespaced: false,
};

let api: StandInApiServer | undefined;
let proxy: TcpProxy | undefined;
let lookups: ClusterLookups | undefined;
afterEach(async () => {
  await lookups?.close();
  await proxy?.close();
  await api?.close();
  lookups = undefined;
  proxy = undefined;
  api = undefined;
});

interface SetUp {
  api: StandInApiServer;
  lookups: ClusterLookups;
  recorder: LookupEventRecorder;
  logs: string[];
}

async function startServer(): Promise<StandInApiServer> {
  api = await startStandInApiServer({ resources: [serviceAccountType, secretType, runtimeClassType] });
  return api;
}

function startLookups(server: StandInApiServer, options: Partial<ClusterLookupsOptions> = {}): SetUp {
  const recorder = new LookupEventRecorder();
  const logs: string[] = [];
  lookups = createClusterLookups({
    kubeConfig: server.kubeConfig,
    logger: recordingLogger(logs),
    backoff: { initialMs: 20, maxMs: 200 },
    recorder,
    ...options,
  });
  return { api: server, lookups, recorder, logs };
}

async function setUp(options: Partial<ClusterLookupsOptions> = {}, seed: (api: StandInApiServer) => void = () => {}): Promise<SetUp> {
  const server = await startServer();
  seed(server);
  const started = startLookups(server, options);
  await started.lookups.ready();
  return started;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function serviceAccount(namespace: string, name: string, extra: Record<string, unknown> = {}) {
  return { metadata: { name, namespace }, ...extra };
}

async function thrown(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('cluster lookups: watch requests', () => {
  // A real API server does not show the query it was sent.
  it('ask for bookmarks, so the API server keeps the resume point fresh', async () => {
    const { api, lookups } = await setUp();
    api.store.put(serviceAccountType, serviceAccount('ns', 'late'));
    await eventually(() => lookups.serviceAccounts.cached('ns', 'late'), 'the new service account');
    expect(new URLSearchParams(api.calls.requests('watch serviceaccounts')[0]?.query).get('allowWatchBookmarks')).toBe('true');
  });
});

describe('cluster lookups: live reads', () => {
  it('throws a StatusError carrying the server Status when the API server fails', async () => {
    const { api, lookups, recorder } = await setUp();
    api.inject('get serviceaccounts', { kind: 'server-error', message: 'etcdserver: leader changed' }, { times: 1 });
    const read = instrumentLookups(lookups, recorder);
    const failed = await thrown(read.serviceAccounts.live('ns', 'sa'));
    expect(isStatusError(failed)).toBe(true);
    expect((failed as StatusError).status).toMatchObject({
      code: 500,
      reason: 'InternalError',
      message: 'Internal error occurred: etcdserver: leader changed',
    });

    expect(recorder.events.filter((e) => e.startsWith('live'))).toEqual(['live serviceaccounts error']);
  });

  it('is bounded by the caller signal and aborts the request on the wire', async () => {
    const { api, lookups } = await setUp();
    api.inject('get serviceaccounts', { kind: 'hang' });
    const started = Date.now();
    const error = await thrown(lookups.serviceAccounts.live('ns', 'sa', AbortSignal.timeout(100)));
    expect((error as Error).name).toBe('TimeoutError');
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('bounds a live read by its own timeout when the caller gives none', async () => {
    const { api, lookups } = await setUp({ liveTimeoutMs: 100 });
    api.inject('get secrets', { kind: 'hang' });
    const error = await thrown(lookups.secrets.live('ns', 's'));
    expect((error as Error).message).toMatch(
      /^GET "https:\/\/127\.0\.0\.1:\d+\/api\/v1\/namespaces\/ns\/secrets\/s": context deadline exceeded$/,
    );
  });
});

describe('cluster lookups: recovery', () => {
  it('reconnects after the watch connection is cut, relists, and keeps following changes', async () => {
    const server = await startServer();
    server.store.put(serviceAccountType, serviceAccount('ns', 'before'));
    proxy = await startTcpProxy(server);
    const recorder = new LookupEventRecorder();
    const logs: string[] = [];
    lookups = createClusterLookups({
      kubeConfig: proxy.kubeConfig,
      logger: recordingLogger(logs),
      backoff: { initialMs: 20, maxMs: 200 },
      recorder,
    });
    await lookups.ready();
    const live = lookups;
    server.store.put(serviceAccountType, serviceAccount('ns', 'first'));
    await eventually(() => live.serviceAccounts.cached('ns', 'first'), 'the first object by watch');
    const listsBefore = server.calls.count('list serviceaccounts');

    proxy.dropAll();
    // Deleted while no watch runs: only the relist can tell the cache.
    server.store.delete(serviceAccountType, 'ns', 'before');
    await eventually(() => recorder.count('restart serviceaccounts error') >= 1, 'a restart after the error');
    await eventually(() => live.serviceAccounts.cached('ns', 'before') === undefined, 'the deletion seen by the relist');
    expect(server.calls.count('list serviceaccounts')).toBeGreaterThan(listsBefore);

    server.store.put(serviceAccountType, serviceAccount('ns', 'second'));
    await eventually(() => live.serviceAccounts.cached('ns', 'second'), 'an object created after the reconnect');
    expect(recorder.count('error serviceaccounts')).toBeGreaterThanOrEqual(1);
    expect(logs.some((line) => line.includes('informer failed; restarting after backoff') && line.includes('serviceaccounts'))).toBe(true);
  });

  it('relists when the watch hangs without answering (watchdog), so new objects still arrive', async () => {
    const server = await startServer();
    server.inject('watch serviceaccounts', { kind: 'hang' });
    const { lookups, recorder } = startLookups(server, { stallTimeoutMs: 300 });
    await lookups.ready();
    server.store.put(serviceAccountType, serviceAccount('ns', 'while-stalled'));
    await eventually(() => lookups.serviceAccounts.cached('ns', 'while-stalled'), 'the object via a watchdog relist');
    expect(recorder.count('restart serviceaccounts stall')).toBeGreaterThanOrEqual(1);
    expect(server.calls.count('list serviceaccounts')).toBeGreaterThanOrEqual(2);
    expect(server.calls.count('get serviceaccounts')).toBe(0);
  });

  it('relists when the LIST itself hangs', async () => {
    const server = await startServer();
    server.store.put(serviceAccountType, serviceAccount('ns', 'sa'));
    server.inject('list serviceaccounts', { kind: 'hang' }, { times: 1 });
    const { lookups, recorder } = startLookups(server, { stallTimeoutMs: 200 });
    await lookups.ready();
    expect(lookups.serviceAccounts.cached('ns', 'sa')).toBeDefined();
    expect(recorder.count('restart serviceaccounts stall')).toBeGreaterThanOrEqual(1);
  });

  it('gives up on a hung LIST after listTimeoutMs and retries, well before the stall timeout', async () => {
    const server = await startServer();
    server.store.put(serviceAccountType, serviceAccount('ns', 'sa'));
    server.inject('list serviceaccounts', { kind: 'hang' }, { times: 1 });
    const { lookups, recorder } = startLookups(server, { listTimeoutMs: 200, stallTimeoutMs: 60_000 });
    await lookups.ready();
    expect(lookups.serviceAccounts.cached('ns', 'sa')).toBeDefined();
    expect(recorder.count('restart serviceaccounts stall')).toBe(0);
    expect(server.calls.count('list serviceaccounts')).toBeGreaterThanOrEqual(2);
  });

  it('relists every resyncMs even when nothing seems wrong', async () => {
    const { api, recorder } = await setUp({ resyncMs: 150 });
    await eventually(() => api.calls.count('list runtimeclasses') >= 3, 'two periodic relists');
    expect(recorder.count('restart runtimeclasses resync')).toBeGreaterThanOrEqual(2);
    expect(recorder.count('restart runtimeclasses stall')).toBe(0);
  });

  it('restarts with a growing backoff while the LIST keeps failing', async () => {
    const server = await startServer();
    server.inject(
      'list secrets',
      {
        kind: 'status',
        code: 403,
        message:
          'secrets is forbidden: User "system:serviceaccount:x:y" cannot list resource "secrets" in API group "" at the cluster scope',
      },
      { times: 4 },
    );
    const { lookups, recorder } = startLookups(server, { backoff: { initialMs: 40, maxMs: 1_000 } });
    const started = Date.now();
    await eventually(() => recorder.count('error secrets') >= 1, 'the first failure');
    expect(lookups.notReadyReasons()).toContain(
      'secrets cache has not synced (last error: HTTP 403: secrets is forbidden: User "system:serviceaccount:x:y" cannot list resource "secrets" in API group "" at the cluster scope)',
    );
    await lookups.ready();
    // 40 + 80 + 160 + 320 ms of backoff (jitter only adds) before the fifth LIST succeeds.
    expect(Date.now() - started).toBeGreaterThanOrEqual(600);
    expect(server.calls.count('list secrets')).toBe(5);
    expect(recorder.count('restart secrets error')).toBe(4);
  });
});

describe('cluster lookups: shutdown', () => {
  it('leaves no sockets or timers behind after close(), even with a watch and a LIST hanging', async () => {
    const server = await startServer();
    const baselineTimers = process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    server.inject('watch serviceaccounts', { kind: 'hang' });
    server.inject('list runtimeclasses', { kind: 'hang' });
    const { lookups } = startLookups(server, { stallTimeoutMs: 60_000 });
    await eventually(
      () => server.calls.count('watch serviceaccounts') >= 1 && server.calls.count('list runtimeclasses') >= 1,
      'the hanging calls',
    );
    await sleep(50);
    await lookups.close();
    // Only the stand-in's listening socket may remain (the server side of our connections closes
    // as soon as ours do).
    const networkHandles = () => process.getActiveResourcesInfo().filter((r) => ['TLSWrap', 'TCPWrap'].includes(r));
    for (let i = 0; i < 100 && networkHandles().length > 0; i++) await sleep(20);
    expect(networkHandles()).toEqual([]);
    expect(process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length).toBeLessThanOrEqual(baselineTimers);
    const calls = server.calls.counts();
    await sleep(150);
    expect(server.calls.counts()).toEqual(calls);
  });
});
