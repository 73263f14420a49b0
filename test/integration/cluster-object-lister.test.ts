// The cluster adapter that lists a resource's objects for `audit`, through the real
// @kubernetes/client-node against the stand-in API server, for what a real kube-apiserver cannot
// be made to do: a LIST page that never answers. The pages it asks for, and that it asks for the
// next one only when the last object of this one has been taken, are read from the stand-in's call
// log. Paging over a real kube-apiserver: test/control-plane/audit.test.ts.
import { afterEach, describe, expect, it } from 'vitest';
import { createObjectLister, type ObjectLister } from '../../src/adapters/cluster/objects/list-objects.ts';
import { type ResourceType, type StandInApiServer, startStandInApiServer } from '../apiserver/index.ts';

const podType: ResourceType = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true };
const deploymentType: ResourceType = { group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', namespaced: true };
const pods = { group: '', version: 'v1', resource: 'pods', kind: 'Pod' };

let api: StandInApiServer | undefined;
let lister: ObjectLister | undefined;
afterEach(async () => {
  await lister?.close();
  await api?.close();
  lister = api = undefined;
});

async function start(count: number, pageSize: number, timeoutMs = 5_000) {
  api = await startStandInApiServer({ resources: [podType, deploymentType] });
  for (let i = 0; i < count; i++) {
    api.store.put(podType, { metadata: { name: `p-${String(i).padStart(2, '0')}`, namespace: i % 2 === 0 ? 'a' : 'b' } });
  }
  lister = createObjectLister({ kubeConfig: api.kubeConfig, pageSize, timeoutMs });
  return { api, lister };
}

describe('the cluster object lister', () => {
  it('reads every object in pages of the given size, each with the apiVersion and kind the LIST leaves off', async () => {
    const { api, lister } = await start(7, 3);
    const names: string[] = [];
    for await (const object of lister.list(pods)) {
      expect(object).toMatchObject({ apiVersion: 'v1', kind: 'Pod' });
      names.push(`${object.metadata?.namespace}/${object.metadata?.name}`);
    }
    expect(names.sort()).toEqual(['a/p-00', 'a/p-02', 'a/p-04', 'a/p-06', 'b/p-01', 'b/p-03', 'b/p-05']);
    const queries = api.calls.requests('list pods').map((r) => new URLSearchParams(r.query));
    expect(queries.map((q) => q.get('limit'))).toEqual(['3', '3', '3']);
    expect(queries[0]!.has('continue')).toBe(false);
    expect(queries.slice(1).every((q) => (q.get('continue') ?? '') !== '')).toBe(true);
  });

  it('asks for the next page only when the last object of this one has been taken', async () => {
    const { api, lister } = await start(5, 2);
    const objects = lister.list(pods);
    await objects.next();
    await objects.next();
    expect(api.calls.count('list pods')).toBe(1);
    await objects.next();
    expect(api.calls.count('list pods')).toBe(2);
    await objects.return(undefined);
  });

  it('lists a resource of a named group under /apis', async () => {
    const { api, lister } = await start(0, 10);
    api.store.put(deploymentType, { metadata: { name: 'web', namespace: 'a' } });
    const listed = [];
    for await (const object of lister.list({ group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment' }))
      listed.push(object);
    expect(listed).toEqual([
      expect.objectContaining({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: expect.objectContaining({ name: 'web' }) }),
    ]);
  });

  it('gives up a page that never answers within its timeout, naming the resource and the call', async () => {
    const { api, lister } = await start(3, 2, 300);
    api.inject('list pods', { kind: 'hang' });
    const started = performance.now();
    const listing = (async () => {
      for await (const _ of lister.list(pods));
    })();
    await expect(listing).rejects.toThrow(
      /^cannot list pods: Get "https:\/\/127\.0\.0\.1:\d+\/api\/v1\/pods\?limit=2": context deadline exceeded$/,
    );
    expect(performance.now() - started).toBeLessThan(3_000);
  });

  it('reports the API server refusing a page in its own words', async () => {
    const { api, lister } = await start(3, 2);
    api.inject('list pods', { kind: 'status', code: 403, message: 'pods is forbidden: User "x" cannot list resource "pods"' });
    const listing = (async () => {
      for await (const _ of lister.list(pods));
    })();
    await expect(listing).rejects.toThrow('cannot list pods: pods is forbidden: User "x" cannot list resource "pods"');
  });
});
