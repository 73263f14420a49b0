// The cluster adapters against a real kube-apiserver, through @kubernetes/client-node: REST mapping
// from real discovery (built-in kinds, a cluster-scoped kind, and a CRD created during the test,
// found by the refresh a miss triggers), and the lookups' informer caches and live reads following
// what is written through the API.
import { ApiextensionsV1Api, CoreV1Api, KubeConfig, NodeV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type ControlPlane, startControlPlane } from '../../control-plane/control-plane.ts';
import { type ClusterLookups, createClusterLookups } from '../../src/adapters/cluster/lookups/lookups.ts';
import { type ClusterRestMapper, createClusterRestMapper } from '../../src/adapters/cluster/rest-mapping/rest-mapper.ts';
import { RestScope } from '../../src/ports/rest-mapper.ts';
import { describeWithControlPlane } from './real-cluster.ts';

/** Retries an assertion about something that happens in the background until it holds (or its last failure after the timeout). */
async function settles(check: () => unknown, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await check();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

describeWithControlPlane('cluster adapters against a real kube-apiserver', () => {
  let controlPlane: ControlPlane;
  let kubeConfig: KubeConfig;
  let mapper: ClusterRestMapper;
  let lookups: ClusterLookups;

  beforeAll(async () => {
    controlPlane = await startControlPlane();
    kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(controlPlane.kubeconfigYaml);
    // A miss may refresh at once: the CRD below appears after the first pass.
    mapper = createClusterRestMapper({ kubeConfig, refreshIntervalMs: 0 });
    await mapper.ready();
    lookups = createClusterLookups({ kubeConfig });
    await lookups.ready();
  }, 90_000);
  afterAll(async () => {
    await lookups?.close();
    await mapper?.close();
    await controlPlane?.stop();
  });

  const mappings = async (group: string, kind: string, versions: string[] = []) =>
    (await mapper.mappingsFor({ group, kind }, versions)).map((m) => ({
      resource: m.resource,
      namespaced: m.scope === RestScope.Namespace,
    }));

  it('maps built-in kinds as discovery serves them: namespaced and cluster-scoped, narrowed by version', async () => {
    expect(await mappings('apps', 'Deployment')).toEqual([
      { resource: { group: 'apps', version: 'v1', resource: 'deployments' }, namespaced: true },
    ]);
    expect(await mappings('', 'Node', ['v1'])).toEqual([{ resource: { group: '', version: 'v1', resource: 'nodes' }, namespaced: false }]);
    await expect(mapper.mappingsFor({ group: 'apps', kind: 'Deployment' }, ['v1beta1'])).rejects.toThrow();
    await expect(mapper.mappingsFor({ group: 'example.com', kind: 'Gadget' }, [])).rejects.toThrow();
  });

  it('finds a CRD created after it loaded, by refreshing discovery on the miss', async () => {
    const crds = kubeConfig.makeApiClient(ApiextensionsV1Api);
    await crds.createCustomResourceDefinition({
      body: {
        metadata: { name: 'gizmos.example.com' },
        spec: {
          group: 'example.com',
          scope: 'Cluster',
          names: { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo' },
          versions: [
            {
              name: 'v1',
              served: true,
              storage: true,
              schema: { openAPIV3Schema: { type: 'object', x_kubernetes_preserve_unknown_fields: true } },
            },
          ],
        },
      },
    });
    // Discovery serves a CRD only once it is established; until then the miss is a miss.
    await settles(
      async () =>
        expect(await mappings('example.com', 'Gizmo')).toEqual([
          { resource: { group: 'example.com', version: 'v1', resource: 'gizmos' }, namespaced: false },
        ]),
      20_000,
    );
  });

  it('service accounts, secrets and runtime classes: the caches follow writes, live reads answer at once', async () => {
    const core = kubeConfig.makeApiClient(CoreV1Api);
    const node = kubeConfig.makeApiClient(NodeV1Api);
    await core.createNamespace({ body: { metadata: { name: 'lookups' } } });
    expect(lookups.serviceAccounts.cached('lookups', 'builder')).toBeUndefined();
    expect(await lookups.serviceAccounts.live('lookups', 'builder')).toBeUndefined();

    await core.createNamespacedServiceAccount({
      namespace: 'lookups',
      body: { metadata: { name: 'builder' }, imagePullSecrets: [{ name: 'registry' }] },
    });
    await core.createNamespacedSecret({
      namespace: 'lookups',
      body: {
        metadata: { name: 'registry' },
        type: 'kubernetes.io/dockerconfigjson',
        data: { '.dockerconfigjson': Buffer.from('{"auths":{}}').toString('base64') },
      },
    });
    await node.createRuntimeClass({ body: { metadata: { name: 'gvisor' }, handler: 'runsc', overhead: { podFixed: { memory: '64Mi' } } } });

    expect(await lookups.serviceAccounts.live('lookups', 'builder')).toMatchObject({
      metadata: { name: 'builder' },
      imagePullSecrets: [{ name: 'registry' }],
    });
    await settles(() => {
      expect(lookups.serviceAccounts.cached('lookups', 'builder')).toMatchObject({ imagePullSecrets: [{ name: 'registry' }] });
      expect(lookups.secrets.cached('lookups', 'registry')).toMatchObject({ type: 'kubernetes.io/dockerconfigjson' });
      expect(lookups.runtimeClasses.cached('', 'gvisor')).toMatchObject({ handler: 'runsc', overhead: { podFixed: { memory: '64Mi' } } });
    });
    // Secrets are looked up by name and type: the cache never holds their data.
    expect(lookups.secrets.cached('lookups', 'registry')).not.toHaveProperty('data');

    await core.deleteNamespacedServiceAccount({ name: 'builder', namespace: 'lookups' });
    await settles(() => expect(lookups.serviceAccounts.cached('lookups', 'builder')).toBeUndefined());
  });
});
