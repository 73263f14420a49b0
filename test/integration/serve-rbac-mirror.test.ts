// `serve --authorizer=rbac-mirror` end to end against the stand-in API server: the flag and its
// errors, readiness that waits for the four RBAC caches, OwnerReferencesPermissionEnforcement
// answered from the mirror where RBAC allows (no SubjectAccessReview) and through SubjectAccessReview
// where it does not, the authorized-by audit annotation, and the mirror's metrics.
import { afterEach, describe, expect, it } from 'vitest';
import { loadClusterStateFile } from '../../src/adapters/local/cluster-state.ts';
import { builtInDiscovery } from '../../src/adapters/local/discovery-snapshot.ts';
import { serveDiscovery } from '../apiserver/discovery-routes.ts';
import {
  putRbac,
  rbacTypes,
  roleBindingType,
  roleType,
  type StandInApiServer,
  startStandInApiServer,
  storeRbacAuthorizer,
  subjectAccessReviewRouteName,
} from '../apiserver/index.ts';
import { hasPromtool, needs, promtool } from '../observability/binaries.ts';
import { runCli } from '../support/cli.ts';
import { get, post } from '../support/https-client.ts';
import { type ServedAgainst, serveAgainst } from '../support/serve-against.ts';
import { testServeConfig } from '../support/serve-config.ts';

let api: StandInApiServer | undefined;
let served: ServedAgainst | undefined;
afterEach(async () => {
  await served?.stop();
  await api?.close();
  served = undefined;
  api = undefined;
});

async function setUp(beforeServe: (api: StandInApiServer) => void = () => {}) {
  const state = await loadClusterStateFile('examples/cluster-state.yaml');
  api = await startStandInApiServer({ authorizer: storeRbacAuthorizer, resources: [...rbacTypes] });
  putRbac(api.store, state);
  // dana may finalize deployments in "default", and nothing else: her owners are checked one by one.
  api.store.put(roleType, {
    metadata: { name: 'finalize-deployments', namespace: 'default' },
    rules: [{ apiGroups: ['apps'], resources: ['deployments/finalizers'], verbs: ['update'] }],
  });
  api.store.put(roleBindingType, {
    metadata: { name: 'dana', namespace: 'default' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'finalize-deployments' },
    subjects: [{ kind: 'User', name: 'dana' }],
  });
  serveDiscovery(api, builtInDiscovery);
  beforeServe(api);
  served = await serveAgainst(api, { authorizer: 'rbac-mirror' });
  return { ...served, api };
}

function ownersReview(username: string, groups: string[], refs: number, namespace = 'default') {
  const ownerReferences = Array.from({ length: refs }, (_, i) => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    name: `owner-${i}`,
    uid: `uid-${i}`,
    blockOwnerDeletion: true,
  }));
  return JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: `uid-${username}`,
      kind: { group: '', version: 'v1', kind: 'ConfigMap' },
      resource: { group: '', version: 'v1', resource: 'configmaps' },
      namespace,
      name: 'cfg',
      operation: 'CREATE',
      userInfo: { username, groups, uid: 'u-1' },
      object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg', namespace, ownerReferences } },
    },
  });
}

describe('serve --authorizer', () => {
  it.each([
    [['--authorizer', 'webhook'], '--authorizer "webhook": expected one of sar, rbac-mirror'],
    [
      ['--authorizer', 'rbac-mirror', '--cluster-state', 'examples/cluster-state.yaml'],
      '--authorizer rbac-mirror needs the cluster backend',
    ],
  ])('%j fails with a clear message', async (args, message) => {
    const result = await runCli(['serve', '--tls-cert-file', 'a', '--tls-private-key-file', 'b', ...args]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('reads ADMISSION_CHAIN_AUTHORIZER', async () => {
    const result = await runCli(['serve', '--tls-cert-file', 'a', '--tls-private-key-file', 'b'], {
      env: { ...process.env, ADMISSION_CHAIN_AUTHORIZER: 'nope' },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--authorizer "nope"');
  });

  it('defaults to sar', () => {
    expect(testServeConfig({ tlsCertFile: 'a', tlsPrivateKeyFile: 'b' }).authorizer).toBe('sar');
  });
});

describe('serve --authorizer=rbac-mirror on the cluster backend', () => {
  it('is not ready until the RBAC caches have listed', async () => {
    const { server, ready } = await setUp((stand) => stand.inject('list rolebindings', { kind: 'status', code: 403 }, { times: 1 }));
    const notReady = await get(`http://127.0.0.1:${server.metricsPort}/readyz`);
    expect(notReady.status).toBe(503);
    expect(notReady.text).toContain('rolebindings cache (RBAC mirror) has not synced');
    await ready();
  });

  it('a wildcard user with 10 owners: the probe is answered by the mirror, no SubjectAccessReview at all', async () => {
    const { server, certs, api, ready } = await setUp();
    await ready();
    const res = await post(`https://127.0.0.1:${server.port}/validate`, ownersReview('bob', ['platform-admins'], 10), { ca: certs.caCert });
    expect(res.json().response).toMatchObject({
      allowed: true,
      auditAnnotations: {
        'OwnerReferencesPermissionEnforcement.path': 'wildcard-probe',
        'OwnerReferencesPermissionEnforcement.authorized-by': 'rbac-mirror',
      },
    });
    expect(api.calls.count(subjectAccessReviewRouteName)).toBe(0);
  });

  it('a narrow user: the probe RBAC does not allow goes to SubjectAccessReview once, each owner is answered by the mirror', async () => {
    const { server, certs, api, ready } = await setUp();
    await ready();
    for (let i = 0; i < 3; i++) {
      const res = await post(`https://127.0.0.1:${server.port}/validate`, ownersReview('dana', [], 5), { ca: certs.caCert });
      expect(res.json().response).toMatchObject({
        allowed: true,
        auditAnnotations: {
          'OwnerReferencesPermissionEnforcement.path': 'per-reference',
          'OwnerReferencesPermissionEnforcement.authorized-by': 'subjectaccessreview,rbac-mirror',
        },
      });
    }
    // The probe, once per cache lifetime; the five owners never.
    expect(api.calls.count(subjectAccessReviewRouteName)).toBe(1);
    expect(
      (api.calls.requests(subjectAccessReviewRouteName)[0]!.body as { spec: { resourceAttributes: unknown } }).spec.resourceAttributes,
    ).toMatchObject({ resource: '*', subresource: 'finalizers' });

    // A user RBAC does not allow is denied with the SubjectAccessReview's words, as with --authorizer=sar.
    const denied = await post(`https://127.0.0.1:${server.port}/validate`, ownersReview('alice', [], 1), { ca: certs.caCert });
    expect(denied.json().response).toMatchObject({
      allowed: false,
      status: {
        code: 403,
        message:
          'configmaps "cfg" is forbidden: cannot set blockOwnerDeletion if an ownerReference refers to a resource you can\'t set finalizers on: , <nil>',
      },
    });

    const metrics = (await get(`http://127.0.0.1:${server.metricsPort}/metrics`)).text;
    expect(metrics).toContain('admission_chain_rbac_mirror_synced 1');
    expect(metrics).toContain('admission_chain_rbac_mirror_objects{resource="rolebindings"} 2');
    expect(metrics).toContain('admission_chain_rbac_mirror_objects{resource="clusterroles"} 1');
    // dana: 3 probes not allowed (1 sent, 2 from the cache), 15 owners allowed; alice: probe and owner not allowed.
    expect(metrics).toContain('admission_chain_rbac_mirror_questions_total{result="allowed"} 15');
    expect(metrics).toContain('admission_chain_rbac_mirror_questions_total{result="not-allowed"} 5');
    expect(metrics).toContain('admission_chain_rbac_mirror_questions_total{result="not-synced"} 0');
    expect(metrics).toMatch(/^admission_chain_informer_lists_total\{resource="clusterrolebindings"\} 1$/m);
    expect(metrics).toMatch(/^admission_chain_rbac_mirror_rebuild_duration_seconds_count [1-9]/m);
  });

  it('explains a denial with the closest grant the mirror holds, as the local backend does', async () => {
    const { server, certs, ready } = await setUp();
    await ready();
    // dana may finalize deployments in "default" only.
    const res = await post(`https://127.0.0.1:${server.port}/validate`, ownersReview('dana', [], 1, 'staging'), { ca: certs.caCert });
    const response = res.json().response;
    expect(response.allowed).toBe(false);
    expect(response.warnings).toContain(
      'closest existing grant: RoleBinding "dana/default" of Role "finalize-deployments" to User "dana" allows exactly this, but only in namespace "default"',
    );
    expect(response.auditAnnotations['OwnerReferencesPermissionEnforcement.explanation']).toContain(
      '# closest existing grant: RoleBinding "dana/default"',
    );
  });

  it.skipIf(!hasPromtool)(`its metrics pass promtool check metrics${needs('promtool')}`, async () => {
    const { server, ready } = await setUp();
    await ready();
    const lint = await promtool(['check', 'metrics'], { stdin: (await get(`http://127.0.0.1:${server.metricsPort}/metrics`)).text });
    expect(lint.stderr + lint.stdout).toBe('');
    expect(lint.code).toBe(0);
  });
});
