// The upstream tables we ported, replayed as real requests where a row is one request the world can
// hold: LimitPodHardAntiAffinityTopology's, ExtendedResourceToleration's, AlwaysPullImages' and
// RuntimeClass's rows as pod creates, DenyServiceExternalIPs' create rows as Service creates,
// StorageObjectInUseProtection's as claim, volume and volume attributes class creates. A pod row gets what the API's
// validation asks of a real pod and upstream's unit test does not: a container with an image, an image
// volume with a reference, and limits equal to its extended-resource requests (they may not be
// overcommitted), and no `namespaces: [""]` in an affinity term (the API refuses an empty namespace
// name; upstream's unit test never validates the pod). Each row carries upstream's
// expectation, which the in-tree answer must meet too.
//
// AlwaysPullImages rows not replayed here: TestValidate calls Validate alone, which a real server never
// does (its mutating phase runs the plugin's Admit first, which sets every pull policy to Always, and
// the API's defaulting fills the empty ones before that), so its denial cannot be reached by a request;
// TestOtherResources' "non-pod resource" (no foos resource exists, and a pod webhook is never sent
// one), "pod subresource" (pods/exec is a CONNECT carrying PodExecOptions, not a pod, and the oracle
// sends creates and updates) and "non-pod object" (a Service body sent to pods, which kube-apiserver's
// decoding refuses before admission). TestUpdatePod's rows need a pod stored before the plugin is on:
// configured-rows.ts replays them.
//
// PodTopologyLabels' TestPodTopology rows run two ways each, as upstream's own subtests do: a pod
// created on the row's node (a dry run) and a pod stored unscheduled, then bound to it with the row's
// labels on the Binding; each node is the world's, with the row's labels. Both must end with the
// row's labels on the pod. Not replayed: "does nothing if the SetPodTopologyLabels feature gate is
// disabled" — both servers run the pinned release with the gate on, and kube-apiserver copies a
// Binding's labels onto the pod only while it is on, so that row's world is another release.
//
// OwnerReferencesPermissionEnforcement's rows, and the ones not replayed: owner-reference-rows.ts.
import type { Pod } from '../../src/api/core.ts';
import { admitCases as pullPolicyCases } from '../../src/plugins/alwayspullimages/testdata/upstream-cases.ts';
import { interPodAffinityCases } from '../../src/plugins/antiaffinity/testdata/upstream-cases.ts';
import { admissionCases as externalIPCases } from '../../src/plugins/denyserviceexternalips/testdata/upstream-cases.ts';
import { admitCases as extendedResourceCases } from '../../src/plugins/extendedresourcetoleration/testdata/upstream-cases.ts';
import { podTopologyCases } from '../../src/plugins/podtopologylabels/testdata/upstream-cases.ts';
import { type PodChangeCase, setOverheadCases, setSchedulingCases } from '../../src/plugins/runtimeclass/testdata/upstream-cases.ts';
import { admitCases as storageCases } from '../../src/plugins/storageobjectinuseprotection/testdata/upstream-cases.ts';
import type { OracleCase } from './generate.ts';
import { ownerReferenceRows } from './owner-reference-rows.ts';
import type { OraclePlugin } from './servers.ts';
import { runtimeClassRowName, topologyRowNodeName, users } from './world.ts';

// No plugin annotation, no cluster default node selector: only the plugin the row is about changes the pod.
const namespace = 'oracle-exempt';

interface RowContainer {
  name: string;
  image?: string;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
}

function realContainer(container: RowContainer): RowContainer {
  const requests = container.resources?.requests ?? {};
  const extended = Object.fromEntries(Object.entries(requests).filter(([name]) => name.includes('/')));
  const limits = { ...extended, ...(container.resources?.limits ?? {}) };
  return {
    ...container,
    image: container.image ?? 'busybox',
    ...(container.resources === undefined
      ? {}
      : { resources: { ...container.resources, ...(Object.keys(limits).length > 0 ? { limits } : {}) } }),
  };
}

/** The affinity without the empty namespace names upstream's terms carry. */
function realAffinity(affinity: unknown): unknown {
  return JSON.parse(JSON.stringify(affinity ?? null), (key, value: unknown) =>
    key === 'namespaces' && Array.isArray(value) && value.every((n) => n === '') ? undefined : value,
  );
}

interface RowVolume {
  name: string;
  image?: { reference?: string; pullPolicy?: string };
}

/** An image volume with a reference (the API requires one on a new pod; upstream's rows give only a pull policy). */
function realVolume(volume: RowVolume): RowVolume {
  return volume.image === undefined ? volume : { ...volume, image: { reference: 'busybox', ...volume.image } };
}

function realPodSpec(spec: Record<string, unknown>): Record<string, unknown> {
  const containers = (spec.containers as RowContainer[] | undefined) ?? [{ name: 'main' }];
  const initContainers = spec.initContainers as RowContainer[] | undefined;
  const volumes = spec.volumes as RowVolume[] | undefined;
  return {
    ...spec,
    ...(spec.affinity === undefined ? {} : { affinity: realAffinity(spec.affinity) }),
    containers: containers.map(realContainer),
    ...(initContainers === undefined ? {} : { initContainers: initContainers.map(realContainer) }),
    ...(volumes === undefined ? {} : { volumes: volumes.map(realVolume) }),
  };
}

/** TestAdmission's check: every init container, container and image volume pulls Always. */
function pullsAlways(admitted: unknown): string | undefined {
  const spec = (admitted as Pod).spec ?? {};
  const policies = [
    ...[...(spec.initContainers ?? []), ...(spec.containers ?? [])].map((c) => [c.name, c.imagePullPolicy] as const),
    ...(spec.volumes ?? []).flatMap((v) => (v.image === undefined ? [] : [[v.name, v.image.pullPolicy] as const])),
  ];
  const others = policies.filter(([, policy]) => policy !== 'Always');
  return others.length === 0
    ? undefined
    : `every pull policy Always, the in-tree server left ${others.map(([name, policy]) => `${name}: ${policy ?? '(none)'}`).join(', ')}`;
}

const slug = (text: string, index: number) =>
  `row-${index}-${text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, 40)
    .replace(/-+$/, '')}`;

function podRow(plugin: OraclePlugin, rowName: string, index: number, spec: Record<string, unknown>, fails: boolean): OracleCase {
  return {
    id: `upstream ${plugin}: ${rowName}`,
    plugin,
    request: {
      operation: 'create',
      resource: 'pods',
      namespace,
      object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: slug(rowName, index) }, spec: realPodSpec(spec) },
      as: users.alice,
    },
    upstreamExpects: fails ? 'denied' : 'admitted',
  };
}

/** A row's expected labels as a check of the admitted pod (upstream compares semantically: none is the same as empty). */
function hasLabels(expected: Record<string, string> | undefined): (admitted: unknown) => string | undefined {
  const want = JSON.stringify(Object.entries(expected ?? {}).sort());
  return (admitted) => {
    const labels = (admitted as Pod).metadata?.labels ?? {};
    const got = JSON.stringify(Object.entries(labels).sort());
    return got === want ? undefined : `labels ${want}, the pod has ${got}`;
  };
}

function podTopologyRows(): OracleCase[] {
  return podTopologyCases.flatMap((row, i) => {
    if (row.featureDisabled) return [];
    const name = slug(row.name, i);
    const labels = row.existingBindingLabels === undefined ? {} : { labels: row.existingBindingLabels };
    const spec = { containers: [{ name: 'main', image: 'busybox' }] };
    const created: OracleCase = {
      id: `upstream PodTopologyLabels: ${row.name} (pod create)`,
      plugin: 'PodTopologyLabels',
      request: {
        operation: 'create',
        resource: 'pods',
        namespace,
        object: { apiVersion: 'v1', kind: 'Pod', metadata: { name, ...labels }, spec: { ...spec, nodeName: topologyRowNodeName(i) } },
        as: users.alice,
      },
      upstreamExpects: 'admitted',
      upstreamResult: hasLabels(row.expectedBindingLabels),
    };
    const bound: OracleCase = {
      id: `upstream PodTopologyLabels: ${row.name} (binding)`,
      plugin: 'PodTopologyLabels',
      request: {
        operation: 'bind',
        resource: 'pods',
        namespace,
        pod: { apiVersion: 'v1', kind: 'Pod', metadata: { name: `${name}-bound` }, spec },
        object: {
          apiVersion: 'v1',
          kind: 'Binding',
          metadata: { name: `${name}-bound`, ...labels },
          target: { apiVersion: 'v1', kind: 'Node', name: topologyRowNodeName(i) },
        },
        as: users.alice,
      },
      upstreamExpects: 'admitted',
      upstreamResult: hasLabels(row.expectedBindingLabels),
    };
    return [created, bound];
  });
}

/** What a TestSetOverhead or TestSetScheduling row expects of the pod: its overhead and node selector, and its tolerations among the pod's. */
function changedAsRowSays(expected: Pod): (admitted: unknown) => string | undefined {
  return (admitted) => {
    const spec = (admitted as Pod).spec ?? {};
    const misses: string[] = [];
    if (JSON.stringify(spec.overhead) !== JSON.stringify(expected.spec?.overhead))
      misses.push(`overhead ${JSON.stringify(expected.spec?.overhead)}, the pod has ${JSON.stringify(spec.overhead)}`);
    const entries = (selector: Record<string, string> | undefined) =>
      JSON.stringify(selector === undefined ? null : Object.entries(selector).sort());
    if (entries(spec.nodeSelector) !== entries(expected.spec?.nodeSelector))
      misses.push(`node selector ${JSON.stringify(expected.spec?.nodeSelector)}, the pod has ${JSON.stringify(spec.nodeSelector)}`);
    const tolerations = (spec.tolerations ?? []).map((t) => JSON.stringify(t));
    for (const toleration of expected.spec?.tolerations ?? [])
      if (!tolerations.includes(JSON.stringify(toleration))) misses.push(`toleration ${JSON.stringify(toleration)}`);
    return misses.length === 0 ? undefined : misses.join('; ');
  };
}

/**
 * RuntimeClass's TestSetOverhead and TestSetScheduling rows as pod creates naming the row's
 * RuntimeClass (the world's, under a name of its own), with upstream's pod names (dry runs store
 * nothing, so names may repeat). TestAdmit's and TestValidateInitialization's rows are about the
 * plugin's lister and client, which a request cannot choose; TestValidate's and
 * TestValidateOverhead's call Validate alone, which a real server never does (Admit sets the
 * RuntimeClass's overhead first, so their denials are TestSetOverhead's).
 */
function runtimeClassRows(): OracleCase[] {
  const row = (table: 'overhead' | 'scheduling', i: number, { name, pod, error, expectedPod }: PodChangeCase): OracleCase => {
    const spec = realPodSpec({ ...(pod.spec as Record<string, unknown>) });
    const request = {
      operation: 'create' as const,
      resource: 'pods' as const,
      namespace,
      object: {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: pod.metadata?.name },
        spec: { ...spec, runtimeClassName: runtimeClassRowName(table, i) },
      },
      as: users.alice,
    };
    return {
      id: `upstream RuntimeClass: ${name}`,
      plugin: 'RuntimeClass',
      request,
      upstreamExpects: error === undefined ? 'admitted' : 'denied',
      ...(expectedPod === undefined ? {} : { upstreamResult: changedAsRowSays(expectedPod) }),
    };
  };
  return [...setOverheadCases.map((r, i) => row('overhead', i, r)), ...setSchedulingCases.map((r, i) => row('scheduling', i, r))];
}

/**
 * StorageObjectInUseProtection's TestAdmit rows as creates of the row's object, each expecting the
 * row's finalizers. Not replayed: the two rows with the VolumeAttributesClass gate off — the gate is
 * locked on from 1.36, so the pinned release cannot turn it off.
 */
function storageRows(): OracleCase[] {
  return storageCases.flatMap((row, i) => {
    if (!row.vacFeatureGate && row.resource.resource === 'volumeattributesclasses') return [];
    const resource = row.resource.resource as 'persistentvolumeclaims' | 'persistentvolumes' | 'volumeattributesclasses';
    const name = slug(row.name, i);
    const finalizers = row.object.metadata?.finalizers;
    const metadata = { name, ...(finalizers === undefined ? {} : { finalizers }) };
    const object =
      resource === 'persistentvolumeclaims'
        ? {
            apiVersion: 'v1',
            kind: 'PersistentVolumeClaim',
            metadata,
            spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
          }
        : resource === 'persistentvolumes'
          ? {
              apiVersion: 'v1',
              kind: 'PersistentVolume',
              metadata,
              spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: `/data/${name}` } },
            }
          : // The API requires a VolumeAttributesClass to carry parameters; upstream's row has none.
            {
              apiVersion: 'storage.k8s.io/v1',
              kind: 'VolumeAttributesClass',
              metadata,
              driverName: 'csi.example.com',
              parameters: { iops: '3000' },
            };
    const expected = JSON.stringify(row.expected.metadata?.finalizers ?? []);
    return [
      {
        id: `upstream StorageObjectInUseProtection: ${row.name}`,
        plugin: 'StorageObjectInUseProtection',
        request: {
          operation: 'create',
          resource,
          namespace: resource === 'persistentvolumeclaims' ? namespace : '',
          object,
          as: users.alice,
        },
        upstreamExpects: 'admitted',
        upstreamResult: (admitted: unknown) => {
          const got = JSON.stringify((admitted as { metadata?: { finalizers?: string[] } }).metadata?.finalizers ?? []);
          return got === expected ? undefined : `finalizers ${expected}, the object has ${got}`;
        },
      } satisfies OracleCase,
    ];
  });
}

/** Every replayable row of the selected plugins' tables. */
export function upstreamCases(plugins: readonly OraclePlugin[]): OracleCase[] {
  const cases: OracleCase[] = [];
  if (plugins.includes('LimitPodHardAntiAffinityTopology')) {
    for (const [i, row] of interPodAffinityCases.entries()) {
      cases.push(podRow('LimitPodHardAntiAffinityTopology', row.name, i, { affinity: row.affinity }, row.errorExpected));
    }
  }
  if (plugins.includes('ExtendedResourceToleration')) {
    for (const [i, row] of extendedResourceCases.entries()) {
      cases.push(podRow('ExtendedResourceToleration', row.description, i, row.spec as Record<string, unknown>, false));
    }
  }
  if (plugins.includes('AlwaysPullImages')) {
    for (const [i, row] of pullPolicyCases.entries()) {
      const rowCase = podRow('AlwaysPullImages', row.name, i, row.pod.spec as Record<string, unknown>, false);
      rowCase.upstreamResult = pullsAlways;
      cases.push(rowCase);
    }
  }
  if (plugins.includes('PodTopologyLabels')) cases.push(...podTopologyRows());
  if (plugins.includes('RuntimeClass')) cases.push(...runtimeClassRows());
  if (plugins.includes('StorageObjectInUseProtection')) cases.push(...storageRows());
  if (plugins.includes('OwnerReferencesPermissionEnforcement')) cases.push(...ownerReferenceRows());
  if (plugins.includes('DenyServiceExternalIPs')) {
    externalIPCases
      .filter((row) => row.oldSvc === undefined)
      .forEach((row, i) => {
        cases.push({
          id: `upstream DenyServiceExternalIPs: ${row.name}`,
          plugin: 'DenyServiceExternalIPs',
          request: {
            operation: 'create',
            resource: 'services',
            namespace,
            object: {
              apiVersion: 'v1',
              kind: 'Service',
              metadata: { name: slug(row.name, i) },
              spec: { ports: [{ port: 80 }], ...row.newSvc.spec },
            },
            as: users.alice,
          },
          upstreamExpects: row.fail ? 'denied' : 'admitted',
        });
      });
  }
  return cases;
}
