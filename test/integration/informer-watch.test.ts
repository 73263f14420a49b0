// The informer's own list-then-watch loop (src/adapters/cluster/client) against the stand-in API
// server, for what a real API server will not do on demand: a watch that ends cleanly is resumed
// from the last resourceVersion seen, without a LIST; a resourceVersion the server calls too old
// (410 Gone, as the watch's answer or as an ERROR event) is relisted, not counted as a failure; a
// watch that goes silent is given up and resumed; a line that is not an event fails the generation,
// which relists; and after close() no request is sent.
import { CoreV1Api } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { createInformerSet, type InformerSet, type InformerSettings } from '../../src/adapters/cluster/client/informer-set.ts';
import type { KubeObject } from '../../src/api/types.ts';
import { silentLogger } from '../../src/ports/logger.ts';
import { type ResourceType, type StandInApiServer, startStandInApiServer } from '../apiserver/index.ts';
import { eventually } from '../support/eventually.ts';

const configMapType: ResourceType = { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true };

let api: StandInApiServer | undefined;
let set: InformerSet<'configmaps'> | undefined;
afterEach(async () => {
  await set?.close();
  await api?.close();
  set = api = undefined;
});

/** The ConfigMap cache's data only: the projection the informer applies to listed and watched objects alike. */
const project = (object: unknown): KubeObject => {
  const { metadata } = object as KubeObject;
  return { metadata: { name: metadata?.name, namespace: metadata?.namespace, resourceVersion: metadata?.resourceVersion } };
};

async function setUp(settings: InformerSettings = {}) {
  const server = await startStandInApiServer({ resources: [configMapType] });
  api = server;
  server.store.put(configMapType, { metadata: { name: 'listed', namespace: 'ns' }, data: { a: '1' } });
  const events: string[] = [];
  let changes = 0;
  set = createInformerSet<'configmaps'>({
    kubeConfig: server.kubeConfig,
    logger: silentLogger,
    backoff: { initialMs: 20, maxMs: 100 },
    recorder: {
      informerList: (resource) => events.push(`list ${resource}`),
      informerError: (resource) => events.push(`error ${resource}`),
      informerRestart: (resource, reason) => events.push(`restart ${resource} ${reason}`),
    },
    onChange: () => changes++,
    ...settings,
  });
  const core = server.kubeConfig.makeApiClient(CoreV1Api);
  const requests = set.requests;
  const informer = set.informer(
    'configmaps',
    '/api/v1/configmaps',
    (page, signal) => core.listConfigMapForAllNamespaces(page, requests.options(signal)),
    project,
  );
  set.start([informer]);
  await set.ready();
  return { api: server, set, informer, events, changes: () => changes };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const watchQueries = (server: StandInApiServer) =>
  server.calls.requests('watch configmaps').map((request) => new URLSearchParams(request.query));

describe('the informer loop', () => {
  it('watches from the LIST resourceVersion with bookmarks, and holds watched objects as projected', async () => {
    const { api, informer, changes } = await setUp();
    expect(informer.get('ns', 'listed')).toEqual({ metadata: { name: 'listed', namespace: 'ns', resourceVersion: expect.any(String) } });
    const listedVersion = informer.get('ns', 'listed')?.metadata?.resourceVersion;
    await eventually(() => api.calls.count('watch configmaps') >= 1, 'the first watch');
    const [first] = watchQueries(api);
    expect(first?.get('watch')).toBe('true');
    expect(first?.get('allowWatchBookmarks')).toBe('true');
    expect(first?.get('resourceVersion')).toBe(listedVersion);
    const before = changes();
    api.store.put(configMapType, { metadata: { name: 'watched', namespace: 'ns' }, data: { secret: 'kept out' } });
    await eventually(() => informer.get('ns', 'watched'), 'the watched object');
    expect(informer.get('ns', 'watched')).toEqual({ metadata: { name: 'watched', namespace: 'ns', resourceVersion: expect.any(String) } });
    expect(changes()).toBe(before + 1);
  });

  it('resumes a watch the server ended from the last resourceVersion seen, without a LIST or a failure', async () => {
    const { api, informer, events } = await setUp();
    await eventually(() => api.calls.count('watch configmaps') >= 1, 'the first watch');
    api.store.put(configMapType, { metadata: { name: 'first', namespace: 'ns' } });
    await eventually(() => informer.get('ns', 'first'), 'the first object');
    const seen = informer.get('ns', 'first')?.metadata?.resourceVersion;
    expect(api.store.dropWatches()).toBe(1);
    await eventually(() => api.calls.count('watch configmaps') >= 2, 'the second watch');
    expect(watchQueries(api)[1]?.get('resourceVersion')).toBe(seen);
    api.store.put(configMapType, { metadata: { name: 'second', namespace: 'ns' } });
    await eventually(() => informer.get('ns', 'second'), 'an object through the resumed watch');
    expect(api.calls.count('list configmaps')).toBe(1);
    expect(events).toEqual(['list configmaps']);
    expect(informer.current).toBe(true);
  });

  it('relists when the watch is answered 410 Gone, with no failure or restart counted', async () => {
    const { api, informer, events } = await setUp();
    await eventually(() => api.calls.count('watch configmaps') >= 1, 'the first watch');
    api.inject('watch configmaps', { kind: 'status', code: 410, message: 'too old resource version: 1 (5)' }, { times: 1 });
    api.store.dropWatches();
    // Deleted while no watch runs: only the relist can tell the cache.
    api.store.delete(configMapType, 'ns', 'listed');
    await eventually(() => api.calls.count('list configmaps') >= 2, 'the relist');
    await eventually(() => informer.get('ns', 'listed') === undefined, 'the deletion seen by the relist');
    await eventually(() => api.calls.count('watch configmaps') >= 3, 'a watch after the relist');
    expect(events).toEqual(['list configmaps', 'list configmaps']);
    expect(informer.lastError).toBeUndefined();
  });

  it('relists after an ERROR event saying the resourceVersion expired', async () => {
    const { api, informer, events } = await setUp();
    await eventually(() => api.calls.count('watch configmaps') >= 1, 'the first watch');
    let expire = 1;
    api.addRoute({
      name: 'watch configmaps expired',
      method: 'GET',
      pattern: '/api/v1/configmaps',
      when: (query) => query.get('watch') === 'true' && expire > 0,
      handle(_request, respond) {
        expire -= 1;
        const stream = respond.stream();
        stream.send({
          type: 'ERROR',
          object: {
            kind: 'Status',
            apiVersion: 'v1',
            status: 'Failure',
            reason: 'Expired',
            code: 410,
            message: 'too old resource version',
          },
        });
        // Held open: the informer itself must end this watch and relist.
      },
    });
    api.store.dropWatches();
    api.store.put(configMapType, { metadata: { name: 'missed', namespace: 'ns' } });
    // The relist is counted when it reaches the API server; its answer lands in the informer after.
    await eventually(() => informer.get('ns', 'missed'), 'the relist to bring the object the expired watch missed');
    expect(api.calls.count('list configmaps')).toBeGreaterThanOrEqual(2);
    expect(api.calls.count('watch configmaps expired')).toBe(1);
    await eventually(() => api.calls.count('watch configmaps') >= 2, 'a watch after the relist');
    expect(events).toEqual(['list configmaps', 'list configmaps']);
  });

  it('fails the generation on a line that is not a watch event, and relists rather than lose the change', async () => {
    const { api, informer, events } = await setUp();
    await eventually(() => api.calls.count('watch configmaps') >= 1, 'the first watch');
    let garble = 1;
    api.addRoute({
      name: 'watch configmaps garbled',
      method: 'GET',
      pattern: '/api/v1/configmaps',
      when: (query) => query.get('watch') === 'true' && garble > 0,
      handle(_request, respond) {
        garble -= 1;
        // Valid JSON, but no event: the change it stood for would be lost if it were skipped.
        respond.stream().send({ object: { metadata: { name: 'lost', namespace: 'ns' } } });
      },
    });
    api.store.dropWatches();
    api.store.put(configMapType, { metadata: { name: 'lost', namespace: 'ns' } });
    await eventually(() => api.calls.count('list configmaps') >= 2, 'the relist');
    await eventually(() => informer.get('ns', 'lost'), 'the object from the relist');
    expect(api.calls.count('watch configmaps garbled')).toBe(1);
    expect(events.slice(0, 3)).toEqual(['list configmaps', 'error configmaps', 'restart configmaps error']);
  });

  it('gives up a silent watch after watchTimeoutMs and resumes it where it stopped, without a LIST', async () => {
    const { api, events } = await setUp({ watchTimeoutMs: 150 });
    await eventually(() => api.calls.count('watch configmaps') >= 3, 'two resumed watches');
    const versions = watchQueries(api).map((query) => query.get('resourceVersion'));
    expect(new Set(versions).size).toBe(1);
    expect(api.calls.count('list configmaps')).toBe(1);
    expect(events).toEqual(['list configmaps']);
  });

  it('fails the generation on any other watch answer and relists after the backoff', async () => {
    const { api, informer, events } = await setUp();
    await eventually(() => api.calls.count('watch configmaps') >= 1, 'the first watch');
    api.inject('watch configmaps', { kind: 'status', code: 403, message: 'configmaps is forbidden' }, { times: 1 });
    api.store.dropWatches();
    await eventually(() => events.includes('restart configmaps error'), 'the restart');
    await eventually(() => api.calls.count('list configmaps') >= 2, 'the relist');
    expect(events.slice(0, 3)).toEqual(['list configmaps', 'error configmaps', 'restart configmaps error']);
    await eventually(() => informer.current, 'the cache following the server again');
  });

  it('sends nothing after close(), a watch waiting to resume included', async () => {
    const { api, set } = await setUp();
    await eventually(() => api.calls.count('watch configmaps') >= 1, 'the first watch');
    // Two clean ends in a row: the next watch waits its pause (1 s) before it starts.
    api.store.dropWatches();
    await eventually(() => api.calls.count('watch configmaps') >= 2, 'the second watch');
    api.store.dropWatches();
    await set.close();
    const calls = api.calls.counts();
    // No connection of ours stays open (the stand-in closes its side as soon as ours do).
    const networkHandles = () => process.getActiveResourcesInfo().filter((r) => ['TLSWrap', 'TCPWrap'].includes(r));
    for (let i = 0; i < 100 && networkHandles().length > 0; i++) await sleep(20);
    expect(networkHandles()).toEqual([]);
    await sleep(1_200);
    expect(api.calls.counts()).toEqual(calls);
  });
});
