// `serve` on the cluster backend against a real kube-apiserver: the webhook reaches it through a
// kubeconfig as a pod does, with an identity of its own that holds only what a ClusterRole here
// grants, and kube-apiserver's RBAC answers every SubjectAccessReview from the example cluster
// state applied to it. What only the stand-in can show (the review's exact body and count, a 503 on
// SubjectAccessReview) stays in test/integration/serve-cluster.test.ts.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { type ControlPlane, startControlPlane } from '../../control-plane/control-plane.ts';
import { repoRoot } from '../deploy/tools.ts';
import { runKubectl } from '../kubectl/kubectl.ts';
import { get, post } from '../support/https-client.ts';
import { configMapWithOwnersReview, podReview } from '../support/reviews.ts';
import { type ServedAgainst, serveWithKubeconfig } from '../support/serve-against.ts';
import { describeWithControlPlane } from './real-cluster.ts';

const webhookUser = 'admission-chain-under-test';

function rbacFor(name: string, rules: object[]) {
  return [
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name }, rules },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name },
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: webhookUser }],
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
    },
  ];
}

describeWithControlPlane('serve on the cluster backend, against a real kube-apiserver', () => {
  let controlPlane: ControlPlane;
  let home: string;
  let served: ServedAgainst | undefined;
  let applied = 0;
  const kubectl = async (...args: string[]) => {
    const result = await runKubectl(home, controlPlane.kubeconfigPath, args, { cwd: repoRoot, kubectl: controlPlane.binaries.kubectl });
    if (result.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${result.code}): ${result.stderr}`);
    return result.stdout;
  };

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'serve-cluster-'));
    controlPlane = await startControlPlane({ dir: join(home, 'control-plane') });
    await kubectl('apply', '-f', 'examples/cluster-state.yaml');
    // What ORPE needs of the chart's ClusterRole: asking SubjectAccessReviews (discovery is every
    // authenticated user's).
    await applyObjects(
      rbacFor('orpe-asks', [{ apiGroups: ['authorization.k8s.io'], resources: ['subjectaccessreviews'], verbs: ['create'] }]),
    );
  }, 120_000);
  afterEach(async () => {
    await served?.stop();
    served = undefined;
  });
  afterAll(async () => {
    await controlPlane?.stop();
    if (home !== undefined) await rm(home, { recursive: true, force: true });
  });

  async function applyObjects(objects: object[]) {
    const file = join(home, `objects-${(applied += 1)}.json`);
    await writeFile(file, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }));
    await kubectl('apply', '-f', file);
  }

  it("asks kube-apiserver: a wildcard-allowed user's ten owner references take one review, the wildcard probe", async () => {
    served = await serveWithKubeconfig(await controlPlane.kubeconfigFor(webhookUser), { logLevel: 'info' });
    await served.ready(10_000);
    const res = await post(
      `https://127.0.0.1:${served.server.port}/validate`,
      JSON.stringify(configMapWithOwnersReview({ username: 'bob', groups: ['platform-admins'] }, 10)),
      { ca: served.certs.caCert },
    );
    expect(res.json().response).toMatchObject({
      allowed: true,
      auditAnnotations: { 'OwnerReferencesPermissionEnforcement.path': 'wildcard-probe' },
    });
    const metrics = (await get(`http://127.0.0.1:${served.server.metricsPort}/metrics`)).text;
    expect(metrics).toMatch(/admission_chain_delegated_authz_request_total\{[^}]*outcome="allowed"[^}]*\} 1/);
    expect(metrics).toMatch(/admission_chain_discovery_refreshes_total\{result="success"\} 1/);
    expect(metrics).toMatch(
      /admission_chain_plugin_decision_path_total\{name="OwnerReferencesPermissionEnforcement",path="wildcard-probe"\} 1/,
    );
  });

  it("denies a user without deployments/finalizers with upstream's message, as kube-apiserver's RBAC decides", async () => {
    served = await serveWithKubeconfig(await controlPlane.kubeconfigFor(webhookUser));
    await served.ready(10_000);
    const res = await post(
      `https://127.0.0.1:${served.server.port}/validate`,
      JSON.stringify(configMapWithOwnersReview({ username: 'alice', groups: [] }, 1)),
      { ca: served.certs.caCert },
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
    // SubjectAccessReview says only no: without the RBAC mirror no closest grant is named.
    expect(res.json().response.warnings.join('\n')).not.toContain('closest existing grant');
  });

  it('is not ready while RBAC refuses its LIST of service accounts, and admits from the cache once granted', async () => {
    served = await serveWithKubeconfig(await controlPlane.kubeconfigFor(webhookUser), { plugins: ['ServiceAccount'] });
    const metricsUrl = `http://127.0.0.1:${served.server.metricsPort}`;
    await expect
      .poll(async () => (await get(`${metricsUrl}/metrics`)).text, { timeout: 10_000, interval: 100 })
      .toMatch(/^admission_chain_informer_errors_total\{resource="serviceaccounts"\} [1-9]/m);
    const notReady = await get(`${metricsUrl}/readyz`);
    expect(notReady.status).toBe(503);
    expect(notReady.text).toContain('serviceaccounts cache has not synced');

    await applyObjects(rbacFor('serviceaccount-reads', [{ apiGroups: [''], resources: ['serviceaccounts'], verbs: ['list', 'watch'] }]));
    await served.ready(30_000);
    const res = await post(
      `https://127.0.0.1:${served.server.port}/mutate`,
      JSON.stringify(podReview({ userInfo: { username: 'alice' } })),
      { ca: served.certs.caCert },
    );
    const response = res.json().response;
    expect(response.allowed).toBe(true);
    const patch = JSON.parse(Buffer.from(response.patch, 'base64').toString());
    expect(patch).toEqual(expect.arrayContaining([expect.objectContaining({ path: '/spec/serviceAccountName', value: 'default' })]));
    const metrics = (await get(`${metricsUrl}/metrics`)).text;
    expect(metrics).toMatch(/^admission_chain_informer_restarts_total\{resource="serviceaccounts",reason="error"\} [1-9]/m);
    expect(metrics).toMatch(/^admission_chain_informer_lists_total\{resource="serviceaccounts"\} 1$/m);
  });

  it("never writes its token, a caller's header or a secret's data to a log line or a metric", async () => {
    await kubectl('create', 'serviceaccount', 'webhook-token-holder', '-n', 'default');
    await applyObjects([
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: 'token-holder-asks' },
        subjects: [{ kind: 'ServiceAccount', name: 'webhook-token-holder', namespace: 'default' }],
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'orpe-asks' },
      },
    ]);
    const token = (await kubectl('create', 'token', 'webhook-token-holder', '-n', 'default', '--duration=10m')).trim();
    served = await serveWithKubeconfig(controlPlane.kubeconfigWithToken(token), { logLevel: 'debug' });
    await served.ready(10_000);
    const secretValue = 'c2VjcmV0LXZhbHVlLXRoYXQtbXVzdC1uZXZlci1sZWFr';
    const headers = { authorization: 'Bearer caller-token-never-logged', cookie: 'session=never-logged' };
    const denied = configMapWithOwnersReview({ username: 'alice', groups: [] }, 1);
    denied.request.object.data = { password: secretValue };
    const res = await post(`https://127.0.0.1:${served.server.port}/validate`, JSON.stringify(denied), {
      ca: served.certs.caCert,
      headers,
    });
    expect(res.json().response.allowed).toBe(false);
    const metrics = (await get(`http://127.0.0.1:${served.server.metricsPort}/metrics`)).text;
    expect(served.log.text()).toContain('admission denied');
    const everything = served.log.text() + metrics;
    for (const never of [token, 'caller-token-never-logged', 'session=never-logged', secretValue]) expect(everything).not.toContain(never);
  });
});
