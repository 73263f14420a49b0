// The oracle's seeded generator: pods and Services varied along what the plugins under test read —
// containers and init containers with images, pull policies and (extended) resources, node
// selectors, tolerations, required and preferred anti-affinity, runtime classes, service accounts,
// owner references of several kinds, blocking or not, on pods and ConfigMaps, nodes a pod is created
// on or bound to, images an image policy blocks and its break-glass annotations, a pod's own overhead, claims, volumes and volume attributes classes with and
// without finalizers — in namespaces with and without the plugins' annotations, sent as users with and
// without the rights to write them; and updates of the pods and Services the world holds. The same
// seed gives the same cases, so a disagreement names its own reproduction.
import { seededRandom } from '../../src/util/seeded-random.ts';
import { blockedImages, breakGlassAnnotation, unforwardedAnnotation } from './image-policy.ts';
import type { Identity, OracleRequest } from './request.ts';
import type { OraclePlugin } from './servers.ts';
import {
  existingPodName,
  existingServiceName,
  lateMutationLabel,
  lockedPodName,
  lockedPodNamespace,
  namespaceNames,
  namespacesNotSentToWebhook,
  namespacesWithExistingObjects,
  nodeNames,
  ownedPodName,
  ownedPodNamespace,
  ownedPodReference,
  ownerGroup,
  runtimeClassNames,
  secretNames,
  serviceAccountNames,
  users,
} from './world.ts';

export interface OracleCase {
  /** Names the case and its reproduction: `seed 7 #12`, or the upstream row it replays. */
  id: string;
  /** The plugin the case is aimed at (every selected plugin still sees it), for the per-plugin figures. */
  plugin: OraclePlugin;
  request: OracleRequest;
  /** For replayed upstream rows: what upstream's table expects (checked against the in-tree answer). */
  upstreamExpects?: 'admitted' | 'denied';
  /** For replayed rows that say what admission makes of the object: how the in-tree object misses it, or undefined. */
  upstreamResult?: (admitted: unknown) => string | undefined;
  /** Words the in-tree denial's message must carry, for a row upstream's table expects denied (its error check). */
  upstreamDenial?: string;
}

type Random = () => number;

const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
const chance = (random: Random, p: number) => random() < p;
const some = <T>(random: Random, items: readonly T[], max: number): T[] => {
  const count = Math.floor(random() * (max + 1));
  return Array.from({ length: count }, () => pick(random, items));
};

const images = [
  'nginx',
  'nginx:1.27',
  'registry.example/app:1',
  `registry.example/app@sha256:${'a'.repeat(64)}`,
  'localhost:5000/tool:latest',
];
const pullPolicies = [undefined, undefined, 'Always', 'IfNotPresent', 'Never'];
const extendedResources = ['example.com/gpu', 'example.com/fpga', 'nvidia.com/gpu'];
const tolerationPool: object[] = [
  { key: 'pool', operator: 'Equal', value: 'a', effect: 'NoSchedule' },
  { key: 'pool', operator: 'Equal', value: 'team-a', effect: 'NoSchedule' },
  { key: 'dedicated', operator: 'Equal', value: 'batch', effect: 'NoSchedule' },
  { key: 'dedicated', operator: 'Exists' },
  { key: 'example.com/gpu', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 60 },
  { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'cluster-default', operator: 'Exists', effect: 'NoSchedule' },
  { operator: 'Exists' },
];
const nodeLabels: Record<string, readonly string[]> = { pool: ['a', 'b', 'team-a'], env: ['shared', 'prod'], disk: ['ssd'] };
const topologyKeys = ['kubernetes.io/hostname', 'kubernetes.io/hostname', 'topology.kubernetes.io/zone', 'rack'];
const externalIPs = ['203.0.113.10', '203.0.113.11', '198.51.100.7'];
// A pod's own overhead: the one rc-overhead defines, another, and an empty one.
const podOverheads: object[] = [{ cpu: '250m', memory: '64Mi' }, { cpu: '1' }, {}];
const storageFinalizers = [
  'kubernetes.io/pvc-protection',
  'kubernetes.io/pv-protection',
  'kubernetes.io/vac-protection',
  'example.com/keep',
];
// Mostly a user who may write: a denial by RBAC says nothing about the plugins, but both servers must give it.
const identities: Array<Identity | undefined> = [...Array<Identity>(8).fill(users.alice), undefined, users.bob, users.carol];

// OwnerReferencesPermissionEnforcement asks RBAC about each blocking owner: users with finalizers on
// some owners (dave), on all (erin), with a dangling binding (frank), with none (alice), and the admin.
const ownerIdentities: Array<Identity | undefined> = [
  users.alice,
  users.dave,
  users.dave,
  users.dave,
  users.erin,
  users.frank,
  undefined,
  users.bob,
];

/** Owners the references point at: core, apps, both CRDs, cluster-scoped kinds, a version and kinds discovery does not know. */
const ownerPool: ReadonlyArray<{ apiVersion: string; kind: string; name: string }> = [
  { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner' },
  { apiVersion: 'v1', kind: 'ConfigMap', name: 'other' },
  { apiVersion: 'apps/v1', kind: 'Deployment', name: 'owner' },
  { apiVersion: 'apps/v1', kind: 'Deployment', name: 'other' },
  { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'owner-rs' },
  { apiVersion: `${ownerGroup}/v1`, kind: 'Widget', name: 'w1' },
  { apiVersion: `${ownerGroup}/v1`, kind: 'Gadget', name: 'gadget-a' },
  { apiVersion: `${ownerGroup}/v1`, kind: 'Gadget', name: 'gadget-b' },
  { apiVersion: 'v1', kind: 'Namespace', name: 'oracle-plain' },
  { apiVersion: 'v1', kind: 'Namespace', name: 'oracle-strict' },
  { apiVersion: 'v1', kind: 'Node', name: 'node-1' },
  { apiVersion: 'apps/v2', kind: 'Deployment', name: 'owner' },
  { apiVersion: `${ownerGroup}/v1`, kind: 'Sprocket', name: 's1' },
  { apiVersion: 'nowhere.example/v1', kind: 'Thing', name: 't1' },
];

/** One to three references, each blocking, not blocking or silent about it, some marked controller. */
function ownerReferences(random: Random): object[] {
  const count = 1 + Math.floor(random() * 3);
  let controller = false;
  return Array.from({ length: count }, (_, i) => {
    const owner = pick(random, ownerPool);
    const block = pick(random, [true, true, false, undefined]);
    const isController = !controller && chance(random, 0.3);
    controller ||= isController;
    return {
      ...owner,
      uid: `00000000-0000-0000-0000-${String(100 + i + Math.floor(random() * 4) * 10).padStart(12, '0')}`,
      ...(block === undefined ? {} : { blockOwnerDeletion: block }),
      ...(isController ? { controller: true } : {}),
    };
  });
}

function resources(random: Random, focus: OraclePlugin): object | undefined {
  const out: { requests?: Record<string, string>; limits?: Record<string, string> } = {};
  if (chance(random, 0.4)) out.requests = { cpu: pick(random, ['100m', '1']), ...(chance(random, 0.5) ? { memory: '64Mi' } : {}) };
  if (chance(random, 0.25)) out.limits = { cpu: '1', memory: '128Mi' };
  if (chance(random, focus === 'ExtendedResourceToleration' ? 0.7 : 0.15)) {
    // Extended resources may not be overcommitted: a limit (the request defaults to it), or both equal.
    const name = pick(random, extendedResources);
    const quantity = pick(random, ['1', '2']);
    out.limits = { ...(out.limits ?? {}), [name]: quantity };
    if (chance(random, 0.5)) out.requests = { ...(out.requests ?? {}), [name]: quantity };
  }
  return Object.keys(out).length === 0 ? undefined : out;
}

function container(random: Random, name: string, focus: OraclePlugin): Record<string, unknown> {
  const policy = pick(random, pullPolicies);
  return {
    name,
    image: focus === 'ImagePolicyWebhook' && chance(random, 0.3) ? pick(random, blockedImages) : pick(random, images),
    ...(policy === undefined ? {} : { imagePullPolicy: policy }),
    ...withDefined('resources', resources(random, focus)),
    ...(focus === 'ServiceAccount' ? secretUses(random) : {}),
  };
}

const tokenMountPath = '/var/run/secrets/kubernetes.io/serviceaccount';

/** A container's secrets, as env and envFrom, and now and then its own volume where the token would go. */
function secretUses(random: Random): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (chance(random, 0.25)) out.env = [{ name: 'TOKEN', valueFrom: { secretKeyRef: { name: pick(random, secretNames), key: 'token' } } }];
  if (chance(random, 0.2)) out.envFrom = [{ secretRef: { name: pick(random, secretNames) } }];
  if (chance(random, 0.1)) out.volumeMounts = [{ name: 'own-token', mountPath: tokenMountPath }];
  return out;
}

/**
 * Which account a pod names and what it asks of it: mostly nothing (the account defaults); under the
 * ServiceAccount plugin's focus also `locked`, the missing `ghost`, the automount switch, secret
 * volumes and image pull secrets, and a mirror pod now and then.
 */
function serviceAccountFields(random: Random, focus: OraclePlugin, containers: Record<string, unknown>[]): Record<string, unknown> {
  if (focus !== 'ServiceAccount') return chance(random, 0.2) ? { serviceAccountName: 'builder' } : {};
  const out: Record<string, unknown> = {};
  if (chance(random, 0.6)) out.serviceAccountName = pick(random, serviceAccountNames);
  if (chance(random, 0.25)) out.automountServiceAccountToken = chance(random, 0.5);
  if (chance(random, 0.2)) out.imagePullSecrets = [{ name: pick(random, secretNames) }];
  const volumes: object[] = [];
  if (chance(random, 0.3)) volumes.push({ name: 'creds', secret: { secretName: pick(random, secretNames) } });
  if (containers.some((c) => c.volumeMounts !== undefined)) volumes.push({ name: 'own-token', emptyDir: {} });
  if (volumes.length > 0) out.volumes = volumes;
  return out;
}

function withDefined(key: string, value: unknown): Record<string, unknown> {
  return value === undefined ? {} : { [key]: value };
}

function antiAffinity(random: Random, focus: OraclePlugin): object | undefined {
  if (!chance(random, focus === 'LimitPodHardAntiAffinityTopology' ? 0.9 : 0.15)) return undefined;
  const term = () => ({ labelSelector: { matchLabels: { app: 'web' } }, topologyKey: pick(random, topologyKeys) });
  const required = Array.from({ length: Math.floor(random() * 3) }, term);
  const preferred = Array.from({ length: Math.floor(random() * 2) }, () => ({ weight: 10, podAffinityTerm: term() }));
  const podAntiAffinity = {
    ...(required.length > 0 ? { requiredDuringSchedulingIgnoredDuringExecution: required } : {}),
    ...(preferred.length > 0 ? { preferredDuringSchedulingIgnoredDuringExecution: preferred } : {}),
  };
  return { podAntiAffinity, ...(chance(random, 0.2) ? { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term()] } } : {}) };
}

/** Mostly namespaces the webhook is sent; now and then one it is not. */
function namespaceFor(random: Random, focus: OraclePlugin): string {
  if (chance(random, 0.03)) return pick(random, namespacesNotSentToWebhook);
  // dave's rights are in oracle-plain: most owner references are set there.
  if (focus === 'OwnerReferencesPermissionEnforcement' && chance(random, 0.6)) return 'oracle-plain';
  const sent = namespaceNames.filter((n) => !namespacesNotSentToWebhook.includes(n));
  return focus === 'PodNodeSelector' || focus === 'PodTolerationRestriction'
    ? pick(random, sent)
    : pick(random, ['oracle-plain', 'oracle-exempt', ...sent]);
}

function imageVolumes(random: Random, focus: OraclePlugin): object[] {
  if (!chance(random, focus === 'AlwaysPullImages' ? 0.3 : 0.05)) return [];
  return Array.from({ length: 1 + Math.floor(random() * 2) }, (_, i) => {
    const policy = pick(random, pullPolicies);
    return {
      name: `data${i}`,
      image: {
        reference: pick(random, ['registry.example/data:1', `registry.example/data@sha256:${'b'.repeat(64)}`]),
        ...(policy === undefined ? {} : { pullPolicy: policy }),
      },
    };
  });
}

function podCreate(random: Random, id: string, focus: OraclePlugin): OracleRequest {
  const namespace = namespaceFor(random, focus);
  const containers = Array.from({ length: 1 + Math.floor(random() * 3) }, (_, i) => container(random, `c${i}`, focus));
  const initContainers = Array.from(
    { length: Math.floor(random() * (focus === 'AlwaysPullImages' || focus === 'ExtendedResourceToleration' ? 3 : 1.5)) },
    (_, i) => ({
      ...container(random, `init${i}`, focus),
      ...(chance(random, 0.25) ? { restartPolicy: 'Always' } : {}),
    }),
  );
  const selectorChance = focus === 'PodNodeSelector' ? 0.8 : 0.2;
  const nodeSelector = chance(random, selectorChance)
    ? Object.fromEntries(some(random, Object.keys(nodeLabels), 2).map((key) => [key, pick(random, nodeLabels[key] ?? [])]))
    : undefined;
  const tolerations = chance(random, focus === 'PodTolerationRestriction' || focus === 'ExtendedResourceToleration' ? 0.7 : 0.2)
    ? dedupe(some(random, tolerationPool, 3))
    : undefined;
  const slug = id.replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
  const metadata: Record<string, unknown> = chance(random, 0.1) ? { generateName: `${slug}-` } : { name: slug };
  if (chance(random, 0.03)) metadata.labels = { [lateMutationLabel]: 'true' };
  if (focus === 'PodTopologyLabels' && chance(random, 0.4))
    metadata.labels = { ...(metadata.labels ?? {}), ...topologyLabelsOfOwn(random) };
  if (focus === 'ServiceAccount' && chance(random, 0.05)) metadata.annotations = { 'kubernetes.io/config.mirror': 'mirror' };
  if (focus === 'ImagePolicyWebhook' && chance(random, 0.4))
    metadata.annotations = { [pick(random, [breakGlassAnnotation, breakGlassAnnotation, unforwardedAnnotation])]: 'T-1' };
  if (focus === 'OwnerReferencesPermissionEnforcement') metadata.ownerReferences = ownerReferences(random);
  else if (chance(random, 0.1))
    metadata.ownerReferences = [
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        name: 'owner',
        uid: '00000000-0000-0000-0000-000000000001',
        ...(chance(random, 0.5) ? { blockOwnerDeletion: true } : {}),
      },
    ];
  const accountFields = serviceAccountFields(random, focus, [...containers, ...initContainers]);
  const volumes = [...imageVolumes(random, focus), ...((accountFields.volumes as object[] | undefined) ?? [])];
  const spec: Record<string, unknown> = {
    containers,
    ...accountFields,
    ...(volumes.length > 0 ? { volumes } : {}),
    ...(initContainers.length > 0 ? { initContainers } : {}),
    ...withDefined('nodeSelector', nodeSelector),
    ...withDefined('tolerations', tolerations),
    ...withDefined('affinity', antiAffinity(random, focus)),
    ...(chance(random, focus === 'RuntimeClass' ? 0.85 : 0.15) ? { runtimeClassName: pick(random, runtimeClassNames) } : {}),
    ...(focus === 'RuntimeClass' && chance(random, 0.25) ? { overhead: pick(random, podOverheads) } : {}),
    ...(focus === 'PodTopologyLabels' && chance(random, 0.9) ? { nodeName: pick(random, nodeNames) } : {}),
  };
  return {
    operation: 'create',
    resource: 'pods',
    namespace,
    object: { apiVersion: 'v1', kind: 'Pod', metadata, spec },
    as: pick(random, focus === 'OwnerReferencesPermissionEnforcement' ? ownerIdentities : identities),
  };
}

/** Labels a pod or Binding already carries: a stale zone (the plugin overwrites it), a key it does not copy, an app label. */
function topologyLabelsOfOwn(random: Random): Record<string, string> {
  return Object.fromEntries(
    some(
      random,
      [
        ['topology.kubernetes.io/zone', 'stale'],
        ['topology.kubernetes.io/rack', 'own'],
        ['app', 'web'],
      ] as const,
      2,
    ),
  );
}

/**
 * A pod stored unscheduled, then bound (what the scheduler does): mostly to a Node of the world or
 * one that does not exist, now and then with an empty target kind (kube-apiserver binds it as a Node,
 * the plugin copies nothing), the Binding carrying labels of its own now and then.
 */
function podBinding(random: Random, id: string): OracleRequest {
  const slug = id.replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
  const namespace = pick(random, ['oracle-plain', 'oracle-exempt', 'oracle-tolerant']);
  const labels = chance(random, 0.3) ? topologyLabelsOfOwn(random) : undefined;
  const podLabels = chance(random, 0.3) ? topologyLabelsOfOwn(random) : undefined;
  return {
    operation: 'bind',
    resource: 'pods',
    namespace,
    pod: {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: slug, ...withDefined('labels', podLabels) },
      spec: { containers: [{ name: 'c0', image: pick(random, images) }] },
    },
    object: {
      apiVersion: 'v1',
      kind: 'Binding',
      metadata: { name: slug, ...withDefined('labels', labels) },
      target: { apiVersion: 'v1', kind: chance(random, 0.1) ? '' : 'Node', name: pick(random, nodeNames) },
    },
    as: pick(random, identities),
  };
}

/**
 * An ephemeral container added to a running pod (what `kubectl debug` does): the ServiceAccount
 * plugin checks the secrets it names against an account that enforces its mountable secrets.
 */
function ephemeralContainerUpdate(random: Random): OracleRequest {
  const locked = chance(random, 0.6);
  const container: Record<string, unknown> = { name: 'debug', image: pick(random, images), ...secretUses(random) };
  delete container.volumeMounts;
  return {
    operation: 'update',
    resource: 'pods',
    subresource: 'ephemeralcontainers',
    namespace: locked ? lockedPodNamespace : pick(random, namespacesWithExistingObjects),
    name: locked ? lockedPodName : existingPodName,
    change: { patch: 'strategic', body: { spec: { ephemeralContainers: [container] } } },
    as: pick(random, identities),
  };
}

/**
 * What StorageObjectInUseProtection protects: a PersistentVolumeClaim, a PersistentVolume or a
 * VolumeAttributesClass created with no finalizer, its own, another plugin's or a foreign one.
 */
function storageCreate(random: Random, id: string): OracleRequest {
  const slug = id.replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
  const finalizers = [...new Set(some(random, storageFinalizers, 2))];
  const metadata = { name: slug, ...(finalizers.length > 0 ? { finalizers } : {}) };
  const as = pick(random, identities);
  const roll = random();
  if (roll < 0.5)
    return {
      operation: 'create',
      resource: 'persistentvolumeclaims',
      namespace: chance(random, 0.05) ? pick(random, namespacesNotSentToWebhook) : pick(random, namespaceNames),
      object: {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata,
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
      },
      as,
    };
  if (roll < 0.8)
    return {
      operation: 'create',
      resource: 'persistentvolumes',
      namespace: '',
      object: {
        apiVersion: 'v1',
        kind: 'PersistentVolume',
        metadata,
        spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: `/data/${slug}` } },
      },
      as,
    };
  return {
    operation: 'create',
    resource: 'volumeattributesclasses',
    namespace: '',
    object: {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'VolumeAttributesClass',
      metadata,
      driverName: 'csi.example.com',
      parameters: { iops: '3000' },
    },
    as,
  };
}

/** A dependent that only OwnerReferencesPermissionEnforcement looks at. */
function configMapCreate(random: Random, id: string): OracleRequest {
  const slug = id.replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
  return {
    operation: 'create',
    resource: 'configmaps',
    namespace: chance(random, 0.7) ? ownedPodNamespace : pick(random, ['oracle-tolerant', 'oracle-strict']),
    object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: slug, ownerReferences: ownerReferences(random) }, data: { k: 'v' } },
    as: pick(random, ownerIdentities),
  };
}

/**
 * References set on a pod that exists: the owned pod's own reference newly blocking (or not), or
 * references added to a pod that had none; either needs delete on the pod first.
 */
function ownerReferencesUpdate(random: Random): OracleRequest {
  const owned = chance(random, 0.5);
  const references = owned
    ? [{ ...ownedPodReference, blockOwnerDeletion: chance(random, 0.7) }, ...(chance(random, 0.4) ? ownerReferences(random) : [])]
    : ownerReferences(random);
  return {
    operation: 'update',
    resource: 'pods',
    namespace: owned ? ownedPodNamespace : pick(random, namespacesWithExistingObjects),
    name: owned ? ownedPodName : existingPodName,
    change: { patch: 'merge', body: { metadata: { ownerReferences: references } } },
    as: pick(random, ownerIdentities),
  };
}

function dedupe(items: object[]): object[] {
  return [...new Map(items.map((item) => [JSON.stringify(item), item])).values()];
}

function podUpdate(random: Random): OracleRequest {
  const namespace = pick(random, namespacesWithExistingObjects);
  const as = pick(random, identities);
  if (chance(random, 0.5)) {
    const policy = pick(random, pullPolicies);
    const change = {
      name: 'app',
      image: pick(random, ['registry.example/app:1', 'registry.example/app:2', 'nginx']),
      ...(policy === undefined ? {} : { imagePullPolicy: policy }),
    };
    return {
      operation: 'update',
      resource: 'pods',
      namespace,
      name: existingPodName,
      change: { patch: 'strategic', body: { spec: { containers: [change] } } },
      as,
    };
  }
  return {
    operation: 'update',
    resource: 'pods',
    namespace,
    name: existingPodName,
    change: { appendTolerations: dedupe(some(random, tolerationPool, 2)) },
    as,
  };
}

function serviceCreate(random: Random, id: string): OracleRequest {
  const type = pick(random, ['ClusterIP', 'ClusterIP', 'NodePort', 'LoadBalancer']);
  const ips = [...new Set(some(random, externalIPs, 2))];
  const slug = id.replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
  return {
    operation: 'create',
    resource: 'services',
    namespace: chance(random, 0.05) ? pick(random, namespacesNotSentToWebhook) : pick(random, namespaceNames),
    object: {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: slug },
      spec: { type, ports: [{ port: 80 }], selector: { app: 'web' }, ...(ips.length > 0 ? { externalIPs: ips } : {}) },
    },
    as: pick(random, identities),
  };
}

function serviceUpdate(random: Random): OracleRequest {
  const ips = [...new Set(some(random, externalIPs, 2))];
  const body = chance(random, 0.3) ? { metadata: { labels: { tier: 'edge' } } } : { spec: { externalIPs: ips.length > 0 ? ips : null } };
  return {
    operation: 'update',
    resource: 'services',
    namespace: pick(random, namespacesWithExistingObjects),
    name: existingServiceName,
    change: { patch: 'merge', body },
    as: pick(random, identities),
  };
}

/** `count` cases from `seed`, aimed in turn at each of the plugins. */
export function generateCases(plugins: readonly OraclePlugin[], count: number, seed: number): OracleCase[] {
  const random = seededRandom(seed);
  const cases: OracleCase[] = [];
  for (let i = 0; i < count; i++) {
    const plugin = plugins[i % plugins.length] as OraclePlugin;
    const id = `seed ${seed} #${i}`;
    let request: OracleRequest;
    if (plugin === 'DenyServiceExternalIPs') request = chance(random, 0.7) ? serviceCreate(random, id) : serviceUpdate(random);
    else if (plugin === 'OwnerReferencesPermissionEnforcement') {
      const roll = random();
      request = roll < 0.5 ? podCreate(random, id, plugin) : roll < 0.7 ? configMapCreate(random, id) : ownerReferencesUpdate(random);
    } else if (plugin === 'ServiceAccount' && chance(random, 0.2)) request = ephemeralContainerUpdate(random);
    else if (plugin === 'PodTopologyLabels' && chance(random, 0.35)) request = podBinding(random, id);
    else if (plugin === 'StorageObjectInUseProtection') request = storageCreate(random, id);
    else request = chance(random, 0.15) ? podUpdate(random) : podCreate(random, id, plugin);
    cases.push({ id, plugin, request });
  }
  return cases;
}
