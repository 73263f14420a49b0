import { describe, expect, it } from 'vitest';
import { emptyClusterState, parseClusterState } from './cluster-state.ts';
import { builtInDiscovery } from './discovery-snapshot.ts';
import { createLocalRestMapper } from './rest-mapper.ts';

const crdYaml = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: { name: widgets.example.com }
spec:
  group: example.com
  names: { plural: widgets, singular: widget, kind: Widget }
  scope: Namespaced
  versions: [{ name: v1, served: true, storage: true }]
`;

describe('createLocalRestMapper', () => {
  it('uses the built-in snapshot when the state has no APIResourceLists', async () => {
    const mapper = createLocalRestMapper(emptyClusterState());
    expect(await mapper.mappingsFor({ group: 'apps', kind: 'Deployment' }, ['v1'])).toEqual([
      {
        resource: { group: 'apps', version: 'v1', resource: 'deployments' },
        groupVersionKind: { group: 'apps', version: 'v1', kind: 'Deployment' },
        scope: 'namespace',
      },
    ]);
  });

  it.each([
    ['', 'v1', 'Pod', 'pods', 'namespace'],
    ['', 'v1', 'Node', 'nodes', 'root'],
    ['', 'v1', 'Namespace', 'namespaces', 'root'],
    ['', 'v1', 'PersistentVolume', 'persistentvolumes', 'root'],
    ['', 'v1', 'ReplicationController', 'replicationcontrollers', 'namespace'],
    ['apps', 'v1', 'StatefulSet', 'statefulsets', 'namespace'],
    ['batch', 'v1', 'CronJob', 'cronjobs', 'namespace'],
    ['rbac.authorization.k8s.io', 'v1', 'ClusterRole', 'clusterroles', 'root'],
    ['rbac.authorization.k8s.io', 'v1', 'RoleBinding', 'rolebindings', 'namespace'],
    ['storage.k8s.io', 'v1', 'StorageClass', 'storageclasses', 'root'],
    ['networking.k8s.io', 'v1', 'NetworkPolicy', 'networkpolicies', 'namespace'],
    ['networking.k8s.io', 'v1', 'IngressClass', 'ingressclasses', 'root'],
    ['policy', 'v1', 'PodDisruptionBudget', 'poddisruptionbudgets', 'namespace'],
    ['autoscaling', 'v2', 'HorizontalPodAutoscaler', 'horizontalpodautoscalers', 'namespace'],
    ['coordination.k8s.io', 'v1', 'Lease', 'leases', 'namespace'],
    ['node.k8s.io', 'v1', 'RuntimeClass', 'runtimeclasses', 'root'],
    ['discovery.k8s.io', 'v1', 'EndpointSlice', 'endpointslices', 'namespace'],
    ['certificates.k8s.io', 'v1', 'CertificateSigningRequest', 'certificatesigningrequests', 'root'],
    ['admissionregistration.k8s.io', 'v1', 'ValidatingWebhookConfiguration', 'validatingwebhookconfigurations', 'root'],
    ['apiextensions.k8s.io', 'v1', 'CustomResourceDefinition', 'customresourcedefinitions', 'root'],
    ['scheduling.k8s.io', 'v1', 'PriorityClass', 'priorityclasses', 'root'],
    ['flowcontrol.apiserver.k8s.io', 'v1', 'FlowSchema', 'flowschemas', 'root'],
    ['resource.k8s.io', 'v1', 'ResourceClaim', 'resourceclaims', 'namespace'],
  ])('snapshot: %s/%s %s → %s (%s)', async (group, version, kind, resource, scope) => {
    const [m, ...rest] = await createLocalRestMapper(emptyClusterState()).mappingsFor({ group, kind }, [version]);
    expect(rest).toEqual([]);
    expect(m?.resource).toEqual({ group, version, resource });
    expect(m?.scope).toBe(scope);
  });

  it('snapshot: every subresource belongs to a listed resource, and no resource is listed twice', () => {
    for (const list of builtInDiscovery) {
      const names = list.resources.map((r) => r.name);
      expect(new Set(names).size, list.groupVersion).toBe(names.length);
      for (const name of names.filter((n) => n.includes('/'))) expect(names, `${list.groupVersion} ${name}`).toContain(name.split('/')[0]);
    }
  });

  it("uses exactly the state's APIResourceLists when it has any (no snapshot underneath)", async () => {
    const state = parseClusterState(`
apiVersion: v1
kind: APIResourceList
groupVersion: v1
resources: [{ name: pods, namespaced: true, kind: Pod }]
`);
    const mapper = createLocalRestMapper(state);
    expect((await mapper.mappingsFor({ group: '', kind: 'Pod' }, ['v1'])).length).toBe(1);
    await expect(mapper.mappingsFor({ group: 'apps', kind: 'Deployment' }, ['v1'])).rejects.toThrow(
      'no matches for kind "Deployment" in version "apps/v1"',
    );
  });

  it("adds CRDs to the snapshot and to the state's lists alike", async () => {
    for (const yaml of [crdYaml, `${crdYaml}\n---\napiVersion: v1\nkind: APIResourceList\ngroupVersion: v1\nresources: []\n`]) {
      const mapper = createLocalRestMapper(parseClusterState(yaml));
      const [m] = await mapper.mappingsFor({ group: 'example.com', kind: 'Widget' }, ['v1']);
      expect(m?.resource).toEqual({ group: 'example.com', version: 'v1', resource: 'widgets' });
      expect(m?.scope).toBe('namespace');
    }
  });
});
