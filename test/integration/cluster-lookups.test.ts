// The in-cluster Lookups through the real @kubernetes/client-node against the in-process stand-in
// API server: cache hits without a GET, live reads on a miss, NotFound and failures, objects
// arriving by WATCH, recovery from a dropped watch connection (through a TCP proxy that cuts it)
// and from a hanging watch (the watchdog relists), readiness, Secrets held without their data,
// clean shutdown, and the ServiceAccount and RuntimeClass plugins running on top.
import { afterEach, describe, expect, it } from 'vitest';
import { type ClusterLookups, type ClusterLookupsOptions, createClusterLookups } from '../../src/adapters/cluster/lookups/lookups.ts';
import type { RequestContext } from '../../src/admission/attributes.ts';
import type { Pod } from '../../src/api/core.ts';
import { isForbidden, isStatusError, type StatusError } from '../../src/api/status-error.ts';
import { instrumentLookups } from '../../src/observability/instrument-lookups.ts';
import { definition as runtimeClassPlugin } from '../../src/plugins/runtimeclass/index.ts';
import { definition as serviceAccountPlugin } from '../../src/plugins/serviceaccount/index.ts';
import { systemClock, systemRandom } from '../../src/ports/clock.ts';
import type { Logger } from '../../src/ports/logger.ts';
import type { InformerRecorder, LookupRecorder } from '../../src/ports/recorders.ts';
import { type ResourceType, type StandInApiServer, startStandInApiServer } from '../apiserver/index.ts';
import { startTcpProxy, type TcpProxy } from '../apiserver/tcp-proxy.ts';
import { podAttributes, requestContext } from '../support/attributes.ts';
import { eventually } from '../support/eventually.ts';

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

const secretValue = 'c3VwZXItc2VjcmV0LXBhc3N3b3Jk';
const secretPlain = 'super-secret-password';

/** The informer caches' observations, and the reads as the webhook's decorator counts them. */
class RecordingRecorder implements InformerRecorder, LookupRecorder {
  readonly events: string[] = [];
  cacheRead({ resource, found }: { resource: string; found: boolean }) {
    this.events.push(`cache ${resource} ${found ? 'hit' : 'miss'}`);
  }
  liveRead({ resource, result }: { resource: string; result: string }) {
    this.events.push(`live ${resource} ${result}`);
  }
  retried() {}
  informerError(resource: string) {
    this.events.push(`error ${resource}`);
  }
  informerRestart(resource: string, reason: string) {
    this.events.push(`restart ${resource} ${reason}`);
  }
  informerList(resource: string) {
    this.events.push(`list ${resource}`);
  }
  count(event: string): number {
    return this.events.filter((e) => e === event).length;
  }
}

/** Every line logged, serialised, so tests can check nothing secret was ever written. */
function recordingLogger(lines: string[]): Logger {
  const log = (level: string, bindings: Record<string, unknown>) => (objOrMsg: object | string, msg?: string) => {
    lines.push(JSON.stringify({ level, ...bindings, ...(typeof objOrMsg === 'string' ? { msg: objOrMsg } : { ...objOrMsg, msg }) }));
  };
  const make = (bindings: Record<string, unknown>): Logger => ({
    debug: log('debug', bindings),
    info: log('info', bindings),
    warn: log('warn', bindings),
    error: log('error', bindings),
    child: (more) => make({ ...bindings, ...more }),
    isLevelEnabled: () => true,
  });
  return make({});
}

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
  recorder: RecordingRecorder;
  logs: string[];
}

async function startServer(): Promise<StandInApiServer> {
  api = await startStandInApiServer({ resources: [serviceAccountType, secretType, runtimeClassType] });
  return api;
}

function startLookups(server: StandInApiServer, options: Partial<ClusterLookupsOptions> = {}): SetUp {
  const recorder = new RecordingRecorder();
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

describe('cluster lookups: cache', () => {
  it('answers from the cache after the first LIST, with no GET on the wire', async () => {
    const { api, lookups, recorder } = await setUp({}, (api) => {
      api.store.put(
        serviceAccountType,
        serviceAccount('team-a', 'builder', {
          automountServiceAccountToken: false,
          imagePullSecrets: [{ name: 'registry' }],
          secrets: [{ name: 'token' }],
        }),
      );
      api.store.put(runtimeClassType, {
        metadata: { name: 'gvisor' },
        handler: 'runsc',
        overhead: { podFixed: { cpu: '250m' } },
        scheduling: { nodeSelector: { sandbox: 'true' }, tolerations: [{ key: 'sandbox', operator: 'Exists', effect: 'NoSchedule' }] },
      });
    });
    const read = instrumentLookups(lookups, recorder);
    const account = read.serviceAccounts.cached('team-a', 'builder');
    expect(account).toEqual({
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: 'builder', namespace: 'team-a', uid: expect.any(String), resourceVersion: expect.any(String) },
      automountServiceAccountToken: false,
      imagePullSecrets: [{ name: 'registry' }],
      secrets: [{ name: 'token' }],
    });
    expect(read.runtimeClasses.cached('', 'gvisor')).toEqual({
      apiVersion: 'node.k8s.io/v1',
      kind: 'RuntimeClass',
      metadata: { name: 'gvisor', uid: expect.any(String), resourceVersion: expect.any(String) },
      handler: 'runsc',
      overhead: { podFixed: { cpu: '250m' } },
      scheduling: { nodeSelector: { sandbox: 'true' }, tolerations: [{ key: 'sandbox', operator: 'Exists', effect: 'NoSchedule' }] },
    });
    expect(read.serviceAccounts.cached('team-b', 'builder')).toBeUndefined();
    expect(api.calls.count('get serviceaccounts') + api.calls.count('get runtimeclasses')).toBe(0);
    expect(api.calls.count('list serviceaccounts')).toBe(1);
    expect(recorder.events.filter((e) => e.startsWith('cache'))).toEqual([
      'cache serviceaccounts hit',
      'cache runtimeclasses hit',
      'cache serviceaccounts miss',
    ]);
  });

  it('hands out copies: changing what was read does not change the cache', async () => {
    const { lookups } = await setUp({}, (api) =>
      api.store.put(serviceAccountType, serviceAccount('ns', 'sa', { imagePullSecrets: [{ name: 'a' }] })),
    );
    lookups.serviceAccounts.cached('ns', 'sa')!.imagePullSecrets!.push({ name: 'injected' });
    expect(lookups.serviceAccounts.cached('ns', 'sa')?.imagePullSecrets).toEqual([{ name: 'a' }]);
  });

  it('follows objects created, modified and deleted after start through the WATCH, without relisting', async () => {
    const { api, lookups } = await setUp();
    api.store.put(serviceAccountType, serviceAccount('ns', 'late', { automountServiceAccountToken: true }));
    api.store.put(runtimeClassType, { metadata: { name: 'kata' }, handler: 'kata' });
    await eventually(() => lookups.serviceAccounts.cached('ns', 'late'), 'the new service account');
    await eventually(() => lookups.runtimeClasses.cached('', 'kata'), 'the new runtime class');
    api.store.put(serviceAccountType, serviceAccount('ns', 'late', { automountServiceAccountToken: false }));
    await eventually(() => lookups.serviceAccounts.cached('ns', 'late')?.automountServiceAccountToken === false, 'the modification');
    api.store.delete(serviceAccountType, 'ns', 'late');
    await eventually(() => lookups.serviceAccounts.cached('ns', 'late') === undefined, 'the deletion');
    expect(api.calls.count('list serviceaccounts')).toBe(1);
    expect(api.calls.count('list runtimeclasses')).toBe(1);
    expect(api.calls.count('get serviceaccounts')).toBe(0);
    // Bookmarks are asked for, so a real apiserver keeps the resume point fresh.
    expect(new URLSearchParams(api.calls.requests('watch serviceaccounts')[0]?.query).get('allowWatchBookmarks')).toBe('true');
  });
});

describe('cluster lookups: live reads', () => {
  it('reads live on a cache miss: found, then NotFound as undefined', async () => {
    const { api, lookups, recorder } = await setUp();
    // Hold the next watches so the cache cannot learn of the new object by itself.
    api.inject('watch serviceaccounts', { kind: 'hang' });
    api.store.put(serviceAccountType, serviceAccount('ns', 'fresh'));
    const read = instrumentLookups(lookups, recorder);
    expect(read.serviceAccounts.cached('ns', 'fresh')).toBeUndefined();
    const live = await read.serviceAccounts.live('ns', 'fresh', AbortSignal.timeout(5_000));
    expect(live).toMatchObject({ kind: 'ServiceAccount', metadata: { name: 'fresh', namespace: 'ns' } });
    expect(await read.serviceAccounts.live('ns', 'missing')).toBeUndefined();
    expect(await read.runtimeClasses.live('', 'missing')).toBeUndefined();
    expect(api.calls.requests('get serviceaccounts').map((r) => r.path)).toEqual([
      '/api/v1/namespaces/ns/serviceaccounts/fresh',
      '/api/v1/namespaces/ns/serviceaccounts/missing',
    ]);
    expect(api.calls.requests('get runtimeclasses').map((r) => r.path)).toEqual(['/apis/node.k8s.io/v1/runtimeclasses/missing']);
    expect(recorder.events.filter((e) => e.startsWith('live'))).toEqual([
      'live serviceaccounts found',
      'live serviceaccounts not-found',
      'live runtimeclasses not-found',
    ]);
  });

  it('throws a StatusError carrying the server Status for any other failure', async () => {
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

    api.inject(
      'get runtimeclasses',
      { kind: 'status', code: 403, message: 'runtimeclasses.node.k8s.io "x" is forbidden: nope' },
      { times: 1 },
    );
    const forbidden = await thrown(read.runtimeClasses.live('', 'x'));
    expect(isForbidden(forbidden)).toBe(true);
    expect((forbidden as StatusError).message).toBe('runtimeclasses.node.k8s.io "x" is forbidden: nope');
    expect(recorder.events.filter((e) => e.startsWith('live'))).toEqual(['live serviceaccounts error', 'live runtimeclasses error']);
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

describe('cluster lookups: secrets', () => {
  const secret = (name: string) => ({
    metadata: {
      name,
      namespace: 'ns',
      annotations: {
        'kubernetes.io/service-account.name': 'builder',
        'kubectl.kubernetes.io/last-applied-configuration': `{"data":{"password":"${secretValue}"}}`,
      },
      labels: { app: 'x' },
    },
    type: 'kubernetes.io/service-account-token',
    data: { password: secretValue },
    stringData: { plain: secretPlain },
  });
  const expected = (name: string) => ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name,
      namespace: 'ns',
      uid: expect.any(String),
      resourceVersion: expect.any(String),
      annotations: { 'kubernetes.io/service-account.name': 'builder' },
    },
    type: 'kubernetes.io/service-account-token',
  });

  it('holds name, metadata and type only, from LIST, WATCH and live GET alike, and never logs data', async () => {
    const server = await startServer();
    server.store.put(secretType, secret('listed'));
    // A failed first LIST, so the failure path's log lines are among those checked below.
    server.inject('list secrets', { kind: 'server-error', message: 'etcdserver: request timed out' }, { times: 1 });
    const { lookups, logs } = startLookups(server);
    await lookups.ready();
    expect(lookups.secrets.cached('ns', 'listed')).toEqual(expected('listed'));
    server.store.put(secretType, secret('watched'));
    expect(await eventually(() => lookups.secrets.cached('ns', 'watched'), 'the watched secret')).toEqual(expected('watched'));
    server.inject('watch secrets', { kind: 'hang' });
    expect(await lookups.secrets.live('ns', 'listed')).toEqual(expected('listed'));
    expect(logs.some((line) => line.includes('informer failed') && line.includes('etcdserver: request timed out'))).toBe(true);
    const everything = JSON.stringify([lookups.secrets.cached('ns', 'listed'), lookups.secrets.cached('ns', 'watched'), logs]);
    expect(everything).not.toContain(secretValue);
    expect(everything).not.toContain(secretPlain);
  });
});

describe('cluster lookups: recovery', () => {
  it('reconnects after the watch connection is cut, relists, and keeps following changes', async () => {
    const server = await startServer();
    server.store.put(serviceAccountType, serviceAccount('ns', 'before'));
    proxy = await startTcpProxy(server);
    const recorder = new RecordingRecorder();
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

describe('cluster lookups: readiness and shutdown', () => {
  it('is ready only when every cache has listed once, and names the ones that have not', async () => {
    const server = await startServer();
    server.inject('list secrets', { kind: 'latency', ms: 400 }, { times: 1 });
    const { lookups } = startLookups(server);
    expect(lookups.notReadyReasons()).toEqual([
      'serviceaccounts cache has not synced',
      'secrets cache has not synced',
      'runtimeclasses cache has not synced',
    ]);
    let ready = false;
    void lookups.ready().then(() => (ready = true));
    await eventually(() => lookups.notReadyReasons().length === 1, 'the two fast caches');
    expect(lookups.notReadyReasons()).toEqual(['secrets cache has not synced']);
    expect(ready).toBe(false);
    await lookups.ready();
    expect(lookups.notReadyReasons()).toEqual([]);
  });

  it('rejects ready() when closed before the caches synced', async () => {
    const server = await startServer();
    server.inject('list runtimeclasses', { kind: 'hang' });
    const { lookups } = startLookups(server);
    const ready = lookups.ready();
    ready.catch(() => {}); // observed below; keep the rejection from counting as unhandled meanwhile
    await eventually(() => lookups.notReadyReasons().length === 1, 'the two other caches');
    await lookups.close();
    await expect(ready).rejects.toThrow('runtimeclasses informer closed before its cache synced');
  });

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

describe('cluster lookups: under the plugins', () => {
  const context = (): RequestContext => requestContext(AbortSignal.timeout(10_000));
  const ports = (lookups: ClusterLookups) => ({ lookups, logger: recordingLogger([]), clock: systemClock, random: systemRandom });

  it('ServiceAccount: admits a pod with the account from the cache, and rejects one naming a missing account after one live GET', async () => {
    const { api, lookups } = await setUp({}, (api) =>
      api.store.put(serviceAccountType, serviceAccount('team-a', 'default', { imagePullSecrets: [{ name: 'registry' }] })),
    );
    const plugin = serviceAccountPlugin.create(ports(lookups));
    const attributes = podAttributes({
      namespace: 'team-a',
      object: {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'web', namespace: 'team-a' },
        spec: { containers: [{ name: 'c', image: 'nginx' }] },
      },
    });
    await plugin.admit!(attributes, context());
    await plugin.validate!(attributes, context());
    const pod = attributes.object as Pod;
    expect(pod.spec?.serviceAccountName).toBe('default');
    expect(pod.spec?.imagePullSecrets).toEqual([{ name: 'registry' }]);
    const tokenVolume = pod.spec?.volumes?.find((v) => v.name.startsWith('kube-api-access-'));
    expect(tokenVolume?.name).toMatch(/^kube-api-access-[a-z0-9]{5}$/);
    expect(pod.spec?.containers?.[0]?.volumeMounts).toEqual([
      { name: tokenVolume?.name, readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' },
    ]);
    expect(api.calls.count('get serviceaccounts')).toBe(0);

    const missing = podAttributes({
      namespace: 'team-a',
      object: {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'job', namespace: 'team-a' },
        spec: { serviceAccountName: 'build-bot', containers: [{ name: 'c', image: 'nginx' }] },
      },
    });
    const rejection = await thrown(Promise.resolve(plugin.admit!(missing, context())));
    expect((rejection as StatusError).status).toMatchObject({
      code: 403,
      reason: 'Forbidden',
      message: 'pods "web" is forbidden: error looking up service account team-a/build-bot: serviceaccount "build-bot" not found',
    });
    expect(api.calls.requests('get serviceaccounts').map((r) => r.path)).toEqual(['/api/v1/namespaces/team-a/serviceaccounts/build-bot']);
  });

  it('RuntimeClass: sets overhead and scheduling from the cached class, and rejects a class that exists nowhere', async () => {
    const { api, lookups } = await setUp({}, (api) =>
      api.store.put(runtimeClassType, {
        metadata: { name: 'gvisor' },
        handler: 'runsc',
        overhead: { podFixed: { cpu: '250m', memory: '64Mi' } },
        scheduling: { nodeSelector: { sandbox: 'true' } },
      }),
    );
    const plugin = runtimeClassPlugin.create(ports(lookups));
    const attributes = podAttributes({
      object: {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'web', namespace: 'default' },
        spec: { runtimeClassName: 'gvisor', nodeSelector: { zone: 'a' }, containers: [{ name: 'c', image: 'nginx' }] },
      },
    });
    await plugin.admit!(attributes, context());
    await plugin.validate!(attributes, context());
    const pod = attributes.object as Pod;
    expect(pod.spec?.overhead).toEqual({ cpu: '250m', memory: '64Mi' });
    expect(pod.spec?.nodeSelector).toEqual({ zone: 'a', sandbox: 'true' });
    expect(api.calls.count('get runtimeclasses')).toBe(0);

    const missing = podAttributes({
      object: {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'web', namespace: 'default' },
        spec: { runtimeClassName: 'nope', containers: [{ name: 'c', image: 'nginx' }] },
      },
    });
    const rejection = await thrown(Promise.resolve(plugin.admit!(missing, context())));
    expect((rejection as StatusError).status).toMatchObject({
      code: 403,
      message: 'pods "web" is forbidden: pod rejected: RuntimeClass "nope" not found',
    });
    expect(api.calls.count('get runtimeclasses')).toBe(1);
  });
});
