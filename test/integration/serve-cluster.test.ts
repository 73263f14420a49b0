// `serve` on the cluster backend against the stand-in API server, for what only it can show: the
// SubjectAccessReview's exact body and how many are sent, the reads a cached answer never makes, and
// a 503 on SubjectAccessReview. The same answers from a real kube-apiserver and its RBAC are in
// test/control-plane/serve-cluster.test.ts.
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { loadClusterStateFile } from '../../src/adapters/local/cluster-state.ts';
import { builtInDiscovery } from '../../src/adapters/local/discovery-snapshot.ts';
import { createRbacAuthorizer } from '../../src/adapters/local/rbac/index.ts';
import { startWebhook } from '../../src/wiring/server.ts';
import { serveDiscovery } from '../apiserver/discovery-routes.ts';
import { type ResourceType, type StandInApiServer, startStandInApiServer } from '../apiserver/index.ts';
import { writeTestCertificates } from '../support/certs.ts';
import { get, post } from '../support/https-client.ts';
import { configMapWithOwnersReview, podReview } from '../support/reviews.ts';
import { type ServedAgainst, serveAgainst } from '../support/serve-against.ts';
import { testServeConfig } from '../support/serve-config.ts';

const serviceAccountType: ResourceType = {
  group: '',
  version: 'v1',
  resource: 'serviceaccounts',
  kind: 'ServiceAccount',
  namespaced: true,
};
const sarRoute = 'create subjectaccessreviews';

let api: StandInApiServer | undefined;
let served: ServedAgainst | undefined;
afterEach(async () => {
  await served?.stop();
  await api?.close();
  served = undefined;
  api = undefined;
});

async function setUp(extraFlags: Record<string, string | string[]> = {}, beforeServe: (api: StandInApiServer) => void = () => {}) {
  const state = await loadClusterStateFile('examples/cluster-state.yaml');
  api = await startStandInApiServer({ authorizer: createRbacAuthorizer(state), resources: [serviceAccountType] });
  serveDiscovery(api, builtInDiscovery);
  beforeServe(api);
  served = await serveAgainst(api, { logLevel: 'info', ...extraFlags });
  return { ...served, api };
}

describe('serve on the cluster backend', () => {
  it("sends one SubjectAccessReview with the requester's whole identity for a wildcard-allowed user's 10 owner references, no discovery", async () => {
    const { server, certs, api, ready } = await setUp();
    await ready(5000);
    const discoveryBefore = api.calls.count('discovery apps/v1');
    const res = await post(
      `https://127.0.0.1:${server.port}/validate`,
      JSON.stringify(configMapWithOwnersReview({ username: 'bob', groups: ['platform-admins'] }, 10)),
      { ca: certs.caCert },
    );
    expect(res.json().response).toMatchObject({
      allowed: true,
      auditAnnotations: { 'OwnerReferencesPermissionEnforcement.path': 'wildcard-probe' },
    });
    expect(api.calls.count(sarRoute)).toBe(1);
    const body = api.calls.requests(sarRoute)[0]!.body as { spec: Record<string, unknown> };
    expect(body.spec).toMatchObject({ user: 'bob', groups: ['platform-admins'], uid: 'u-1', extra: { 'example.com/team': ['a'] } });
    expect(api.calls.count('discovery apps/v1')).toBe(discoveryBefore);
  });

  it('denies a scoped user after two reviews: the wildcard probe, then the reference through discovery', async () => {
    const { server, certs, api } = await setUp();
    const res = await post(
      `https://127.0.0.1:${server.port}/validate`,
      JSON.stringify(configMapWithOwnersReview({ username: 'alice', groups: [] }, 1)),
      { ca: certs.caCert },
    );
    expect(res.json().response).toMatchObject({
      allowed: false,
      status: {
        code: 403,
        reason: 'Forbidden',
        message:
          'configmaps "cfg" is forbidden: cannot set blockOwnerDeletion if an ownerReference refers to a resource you can\'t set finalizers on: , <nil>',
      },
    });
    expect(api.calls.count(sarRoute)).toBe(2); // the probe, then deployments/finalizers
  });

  it('admits from the ServiceAccount cache with no GET and no other cache started; one refused LIST counts one error and one restart', async () => {
    // The first LIST of service accounts fails (as on a webhook without RBAC yet), so the cache
    // cannot sync until the informer retries.
    const { server, certs, api, ready } = await setUp({ plugins: ['ServiceAccount'] }, (stand) => {
      stand.store.put(serviceAccountType, { metadata: { name: 'default', namespace: 'default' } });
      stand.inject('list serviceaccounts', { kind: 'status', code: 403 }, { times: 1 });
    });
    const notReady = await get(`http://127.0.0.1:${server.metricsPort}/readyz`);
    expect(notReady.status).toBe(503);
    expect(notReady.text).toContain('serviceaccounts cache has not synced');
    await ready(5000);

    const res = await post(`https://127.0.0.1:${server.port}/mutate`, JSON.stringify(podReview({ userInfo: { username: 'alice' } })), {
      ca: certs.caCert,
    });
    const response = res.json().response;
    expect(response.allowed).toBe(true);
    const patch = JSON.parse(Buffer.from(response.patch, 'base64').toString());
    expect(patch).toEqual(expect.arrayContaining([expect.objectContaining({ path: '/spec/serviceAccountName', value: 'default' })]));
    expect(api.calls.count('get serviceaccounts')).toBe(0);
    // Only the caches the enabled plugins read are started: no secrets or runtimeclasses LIST.
    expect(api.calls.count('list secrets')).toBe(0);
    expect(api.calls.count('list runtimeclasses')).toBe(0);
    // The informer's failed first LIST, its restart and the LIST that synced it, on /metrics.
    const metrics = (await get(`http://127.0.0.1:${server.metricsPort}/metrics`)).text;
    expect(metrics).toMatch(/^admission_chain_informer_errors_total\{resource="serviceaccounts"\} 1$/m);
    expect(metrics).toMatch(/^admission_chain_informer_restarts_total\{resource="serviceaccounts",reason="error"\} 1$/m);
    expect(metrics).toMatch(/^admission_chain_informer_lists_total\{resource="serviceaccounts"\} 1$/m);
    const lastList = Number(
      /^admission_chain_informer_last_list_timestamp_seconds\{resource="serviceaccounts"\} (\S+)$/m.exec(metrics)?.[1],
    );
    expect(Math.abs(lastList - Date.now() / 1000)).toBeLessThan(60);
  });

  it("never writes the cluster credentials, a request header or a secret's data to a log line or a metric, a 503 on SubjectAccessReview included", async () => {
    const { server, certs, api, log, ready } = await setUp(
      { plugins: ['ServiceAccount', 'OwnerReferencesPermissionEnforcement'], logLevel: 'debug' },
      (stand) => {
        stand.store.put(serviceAccountType, { metadata: { name: 'default', namespace: 'default' } });
      },
    );
    await ready(5000);
    const secretValue = 'c2VjcmV0LXZhbHVlLXRoYXQtbXVzdC1uZXZlci1sZWFr';
    const headers = { authorization: 'Bearer caller-token-never-logged', cookie: 'session=never-logged' };
    const denied = configMapWithOwnersReview({ username: 'alice', groups: [] }, 1);
    denied.request.object.data = { password: secretValue };
    await post(`https://127.0.0.1:${server.port}/validate`, JSON.stringify(denied), { ca: certs.caCert, headers });
    // The API server failing: the error is logged, and must not carry the token either. (503 is not
    // retried: the answer comes at once, not after the backoff of a 500.)
    api.inject(sarRoute, { kind: 'status', code: 503 }, { times: 10 });
    await post(
      `https://127.0.0.1:${server.port}/validate`,
      JSON.stringify(configMapWithOwnersReview({ username: 'carol', groups: [] }, 1)),
      {
        ca: certs.caCert,
        headers,
      },
    );
    const metrics = (await get(`http://127.0.0.1:${server.metricsPort}/metrics`)).text;
    const everything = log.text() + metrics;
    expect(log.text()).toContain('admission denied');
    expect(log.text()).toContain('SubjectAccessReview failed');
    for (const never of [api.token, 'caller-token-never-logged', 'session=never-logged', secretValue])
      expect(everything).not.toContain(never);
  });

  it('fails start-up clearly without a usable kubeconfig', async () => {
    const certs = await writeTestCertificates();
    const config = testServeConfig({
      tlsCertFile: certs.certFile,
      tlsPrivateKeyFile: certs.keyFile,
      kubeconfig: '/nonexistent/kubeconfig',
      logLevel: 'silent',
    });
    await expect(startWebhook(config, new Writable({ write: (_c, _e, d) => d() }))).rejects.toThrow(
      'cannot load kubeconfig /nonexistent/kubeconfig',
    );
  });
});
