// The world both API servers of the oracle hold before any case runs: namespaces carrying the
// scheduling plugins' annotations, their service accounts, RuntimeClasses, users with different
// rights (finalizers on some owners, on every owner, or none), owners of several kinds (core, apps,
// a namespaced and a cluster-scoped CRD, cluster-scoped Namespaces), and the pods and Services the
// update cases change; Nodes with and without topology labels, for PodTopologyLabels to copy; a
// namespace our webhook is never sent (the chart's opt-out label; kube-system, which the chart always
// excludes, exists already); and a MutatingAdmissionPolicy, which kube-apiserver runs after every
// in-tree plugin and before every webhook. It is applied to each server through its own API, so each
// server's admission chain admitted it.

import type { OwnerReference } from '../../src/api/types.ts';
import { allUpstreamCases as ownerReferenceRows } from '../../src/plugins/ownerreferences/testdata/upstream-cases.ts';
import { podTopologyCases } from '../../src/plugins/podtopologylabels/testdata/upstream-cases.ts';
import { setOverheadCases, setSchedulingCases } from '../../src/plugins/runtimeclass/testdata/upstream-cases.ts';

/** The plugins' configuration, as chart values; the chart renders the AdmissionConfiguration both servers read. */
export const pluginConfiguration = {
  PodNodeSelector: {
    clusterDefaultNodeSelector: 'env=shared',
    namespaceWhitelists: { 'team-a': 'pool=team-a', 'oracle-pinned': 'pool=a,disk=ssd,env=shared' },
  },
  PodTolerationRestriction: {
    defaultTolerations: [{ key: 'cluster-default', operator: 'Exists', effect: 'NoSchedule' }],
    whitelist: [],
  },
  // The backend's kubeconfig is the oracle's own file on both servers (test/oracle/image-policy.ts);
  // the Secret named here is never read. No cache, so each server asks about every pod.
  ImagePolicyWebhook: {
    kubeConfigSecret: { name: 'oracle-image-policy' },
    allowTTL: -1,
    denyTTL: -1,
    retryBackoff: 1,
    defaultAllow: false,
  },
} as const;

const nodeSelector = 'scheduler.alpha.kubernetes.io/node-selector';
const defaultTolerations = 'scheduler.alpha.kubernetes.io/defaultTolerations';
const tolerationsWhitelist = 'scheduler.alpha.kubernetes.io/tolerationsWhitelist';

const conditionTolerations = [
  { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' },
];

/** Each namespace, and the annotations that make it interesting. */
export const namespaces: Record<string, Record<string, string>> = {
  'oracle-plain': {},
  'oracle-pinned': { [nodeSelector]: 'pool=a' },
  'oracle-exempt': { [nodeSelector]: '' },
  'team-a': {
    [nodeSelector]: 'pool=team-a',
    [defaultTolerations]: JSON.stringify([{ key: 'pool', operator: 'Equal', value: 'team-a', effect: 'NoSchedule' }]),
    [tolerationsWhitelist]: JSON.stringify([
      { key: 'pool', operator: 'Equal', value: 'team-a', effect: 'NoSchedule' },
      ...conditionTolerations,
    ]),
  },
  'oracle-tolerant': {
    [defaultTolerations]: JSON.stringify([
      { key: 'dedicated', operator: 'Equal', value: 'batch', effect: 'NoSchedule' },
      { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 60 },
    ]),
    [tolerationsWhitelist]: JSON.stringify([
      { key: 'dedicated', operator: 'Exists' },
      { key: 'example.com/gpu', operator: 'Exists' },
      ...conditionTolerations,
    ]),
  },
  'oracle-strict': { [tolerationsWhitelist]: JSON.stringify([{ key: 'dedicated', operator: 'Exists' }]) },
  'oracle-open-whitelist': { [tolerationsWhitelist]: '[]' },
  'oracle-bad-selector': { [nodeSelector]: 'pool=a,,=' },
  'oracle-bad-tolerations': { [defaultTolerations]: '{"key": not json' },
  'oracle-opted-out': { [nodeSelector]: 'pool=a' },
};

/** Namespaces the chart's webhook configurations leave out: the in-tree plugins still see them. */
export const optedOutNamespace = 'oracle-opted-out';
export const namespacesNotSentToWebhook = [optedOutNamespace, 'kube-system'];
const namespaceLabels: Record<string, Record<string, string>> = { [optedOutNamespace]: { 'admission-chain.io/disabled': 'true' } };

/**
 * Pods carrying this label are changed by a MutatingAdmissionPolicy after the in-tree plugins ran and
 * before the webhooks run: their first container's pull policy set back to IfNotPresent, and a sidecar
 * asking for an extended resource added.
 */
export const lateMutationLabel = 'oracle.example/late-mutation';
const lateMutationPolicy = [
  {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingAdmissionPolicy',
    metadata: { name: 'oracle-late-mutation' },
    spec: {
      matchConstraints: {
        resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }],
        objectSelector: { matchLabels: { [lateMutationLabel]: 'true' } },
      },
      failurePolicy: 'Fail',
      reinvocationPolicy: 'Never',
      mutations: [
        {
          patchType: 'JSONPatch',
          jsonPatch: {
            expression:
              '[JSONPatch{op: "replace", path: "/spec/containers/0/imagePullPolicy", value: "IfNotPresent"}, ' +
              'JSONPatch{op: "add", path: "/spec/containers/-", value: Object.spec.containers{name: "late-sidecar", image: "registry.example/sidecar:1", imagePullPolicy: "IfNotPresent", resources: Object.spec.containers.resources{limits: {"example.com/gpu": "1"}}}}]',
          },
        },
      ],
    },
  },
  {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingAdmissionPolicyBinding',
    metadata: { name: 'oracle-late-mutation' },
    spec: { policyName: 'oracle-late-mutation' },
  },
];

export const namespaceNames = Object.keys(namespaces);

const zone = 'topology.kubernetes.io/zone';
const region = 'topology.kubernetes.io/region';

/**
 * The nodes PodTopologyLabels copies from: zone and region beside labels it must leave (another key
 * of the same prefix, a subdomain of it, the hostname), a zone alone, no topology at all. Pods are
 * created on them and bound to them, and to a name no Node has.
 */
export const topologyNodes: ReadonlyArray<{ name: string; labels: Record<string, string> }> = [
  {
    name: 'oracle-node-zoned',
    labels: {
      [zone]: 'zone-a',
      [region]: 'region-1',
      'topology.kubernetes.io/rack': 'r1',
      'sub.topology.kubernetes.io/zone': 'sub',
      'kubernetes.io/hostname': 'oracle-node-zoned',
    },
  },
  { name: 'oracle-node-zone-only', labels: { [zone]: 'zone-b' } },
  { name: 'oracle-node-bare', labels: { disk: 'ssd' } },
];
export const nodeNames = [...topologyNodes.map((node) => node.name), 'oracle-node-missing'];

/** The Node each replayed TestPodTopology row binds to: the row's own labels on a node of its own. */
export const topologyRowNodeName = (index: number) => `oracle-topology-row-${index}`;

/** The RuntimeClass each replayed TestSetOverhead and TestSetScheduling row names: the row's, under a name of its own. */
export const runtimeClassRowName = (table: 'overhead' | 'scheduling', index: number) => `oracle-rc-${table}-row-${index}`;

function rowRuntimeClasses(): object[] {
  return [
    ...setOverheadCases.map((row, i) => ({ ...row.runtimeClass, metadata: { name: runtimeClassRowName('overhead', i) } })),
    ...setSchedulingCases.map((row, i) => ({ ...row.runtimeClass, metadata: { name: runtimeClassRowName('scheduling', i) } })),
  ];
}

function nodes(): object[] {
  return [
    ...topologyNodes.map(({ name, labels }) => ({ apiVersion: 'v1', kind: 'Node', metadata: { name, labels } })),
    ...podTopologyCases.map((row, i) => ({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: topologyRowNodeName(i), ...(row.targetNodeLabels === undefined ? {} : { labels: row.targetNodeLabels }) },
    })),
  ];
}

/**
 * Who sends the cases: writers everywhere, a writer in one namespace, and someone with no rights;
 * and, for OwnerReferencesPermissionEnforcement, writers who may also set finalizers on some owners
 * and delete pods in one namespace (dave), on every owner (erin), or who hold a RoleBinding to a Role
 * that does not exist (frank: RBAC then gives a reason with its denial).
 */
export const users = {
  alice: { name: 'alice', groups: ['oracle-writers'] },
  bob: { name: 'bob', groups: [] as string[] },
  carol: { name: 'carol', groups: [] as string[] },
  dave: { name: 'dave', groups: ['oracle-writers'] },
  erin: { name: 'erin', groups: ['oracle-writers'] },
  frank: { name: 'frank', groups: ['oracle-writers'] },
  // upstream gc_admission_test.go's fakeAuthorizer users, writers who may delete and set finalizers on
  // its four resources but one (its "super" is the admin, its "non-deleter" is alice).
  nonPodDeleter: { name: 'non-pod-deleter', groups: ['oracle-writers'] },
  nonRcDeleter: { name: 'non-rc-deleter', groups: ['oracle-writers'] },
  nonNodeDeleter: { name: 'non-node-deleter', groups: ['oracle-writers'] },
} as const;
export type UserName = keyof typeof users;

export const runtimeClasses = [
  { apiVersion: 'node.k8s.io/v1', kind: 'RuntimeClass', metadata: { name: 'rc-plain' }, handler: 'runc' },
  {
    apiVersion: 'node.k8s.io/v1',
    kind: 'RuntimeClass',
    metadata: { name: 'rc-pool-b' },
    handler: 'runc',
    scheduling: { nodeSelector: { pool: 'b' }, tolerations: [{ key: 'pool', operator: 'Equal', value: 'b', effect: 'NoSchedule' }] },
  },
  {
    apiVersion: 'node.k8s.io/v1',
    kind: 'RuntimeClass',
    metadata: { name: 'rc-overhead' },
    handler: 'kata',
    overhead: { podFixed: { cpu: '250m', memory: '64Mi' } },
  },
];
export const runtimeClassNames = [...runtimeClasses.map((rc) => rc.metadata.name), 'rc-missing'];

/**
 * Each namespace's service accounts: `default`; `builder`, with an image pull secret to copy into
 * pods; and `locked`, which enforces its mountable secrets and does not automount a token. Pods may
 * also name `ghost`, which does not exist.
 */
export const serviceAccountNames = ['default', 'builder', 'locked', 'ghost'] as const;
export const secretNames = ['allowed', 'regcred', 'forbidden'] as const;
function serviceAccounts(namespace: string): object[] {
  return [
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace } },
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'builder', namespace }, imagePullSecrets: [{ name: 'regcred' }] },
    {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: 'locked', namespace, annotations: { 'kubernetes.io/enforce-mountable-secrets': 'true' } },
      secrets: [{ name: 'allowed' }],
      imagePullSecrets: [{ name: 'allowed' }],
      automountServiceAccountToken: false,
    },
  ];
}

/** A pod running as `locked`, whose ephemeral containers may name only the secrets the account lists. */
export const lockedPodName = 'existing-locked';
export const lockedPodNamespace = 'oracle-plain';

/** The owners' CRDs: one namespaced kind, one cluster-scoped; no instances are needed (the plugin asks RBAC by name). */
export const ownerGroup = 'oracle.example';
const ownerCrd = (kind: string, plural: string, scope: 'Namespaced' | 'Cluster') => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${plural}.${ownerGroup}` },
  spec: {
    group: ownerGroup,
    scope,
    names: { kind, plural, singular: kind.toLowerCase(), listKind: `${kind}List` },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      },
    ],
  },
});
export const ownerCrds = [ownerCrd('Widget', 'widgets', 'Namespaced'), ownerCrd('Gadget', 'gadgets', 'Cluster')];

/** The owned pod's one reference, not blocking: an update may newly set blockOwnerDeletion on it. */
export const ownedPodName = 'owned';
export const ownedPodNamespace = 'oracle-plain';
export const ownedPodReference = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  name: 'owner',
  uid: '00000000-0000-0000-0000-0000000000c1',
  blockOwnerDeletion: false,
};

const rbac = (kind: string, metadata: object, rest: object) => ({ apiVersion: 'rbac.authorization.k8s.io/v1', kind, metadata, ...rest });
const clusterRoleRef = (name: string) => ({ apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name });
const userSubject = (name: string) => [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name }];

/** Finalizers rights for dave (some owners, by kind and name, and delete on pods in one namespace) and erin (every owner). */
function ownerRbac(): object[] {
  return [
    rbac(
      'ClusterRole',
      { name: 'oracle-finalizers-namespaced' },
      {
        rules: [
          { apiGroups: [''], resources: ['configmaps/finalizers'], verbs: ['update'] },
          { apiGroups: ['apps'], resources: ['deployments/finalizers'], verbs: ['update'], resourceNames: ['owner'] },
          { apiGroups: [ownerGroup], resources: ['widgets/finalizers'], verbs: ['update'] },
          { apiGroups: [''], resources: ['pods', 'configmaps'], verbs: ['delete'] },
        ],
      },
    ),
    rbac(
      'RoleBinding',
      { name: 'dave-finalizes-here', namespace: 'oracle-plain' },
      { roleRef: clusterRoleRef('oracle-finalizers-namespaced'), subjects: userSubject('dave') },
    ),
    rbac(
      'ClusterRole',
      { name: 'oracle-finalizers-cluster' },
      {
        rules: [
          { apiGroups: [''], resources: ['namespaces/finalizers'], verbs: ['update'], resourceNames: ['oracle-plain'] },
          { apiGroups: [ownerGroup], resources: ['gadgets/finalizers'], verbs: ['update'], resourceNames: ['gadget-a'] },
        ],
      },
    ),
    rbac(
      'ClusterRoleBinding',
      { name: 'dave-finalizes-cluster' },
      { roleRef: clusterRoleRef('oracle-finalizers-cluster'), subjects: userSubject('dave') },
    ),
    rbac(
      'ClusterRole',
      { name: 'oracle-finalizers-everything' },
      { rules: [{ apiGroups: ['*'], resources: ['*/finalizers'], verbs: ['update'] }] },
    ),
    rbac(
      'ClusterRoleBinding',
      { name: 'erin-finalizes-everything' },
      { roleRef: clusterRoleRef('oracle-finalizers-everything'), subjects: userSubject('erin') },
    ),
    rbac(
      'RoleBinding',
      { name: 'frank-dangling', namespace: 'oracle-plain' },
      {
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'oracle-missing-role' },
        subjects: userSubject('frank'),
      },
    ),
  ];
}

/** The resources upstream's fakeAuthorizer tells apart: the dependent's, and the owners' of its rows. */
const gcTestResources = [
  ['', 'pods'],
  ['', 'replicationcontrollers'],
  ['', 'nodes'],
  ['apps', 'daemonsets'],
] as const;

/**
 * RBAC for upstream's restricted users: delete and finalizers on every resource of its rows but one,
 * cluster-wide as upstream's fake answers in every namespace (RBAC has no deny: what it never grants,
 * including the plugin's wildcard probe, it does not allow).
 */
function upstreamGcRbac(): object[] {
  return (
    [
      [users.nonPodDeleter, 'pods'],
      [users.nonRcDeleter, 'replicationcontrollers'],
      [users.nonNodeDeleter, 'nodes'],
    ] as const
  ).flatMap(([user, withheld]) => [
    rbac(
      'ClusterRole',
      { name: `oracle-gc-all-but-${withheld}` },
      {
        rules: gcTestResources
          .filter(([, resource]) => resource !== withheld)
          .flatMap(([group, resource]) => [
            { apiGroups: [group], resources: [resource], verbs: ['delete'] },
            { apiGroups: [group], resources: [`${resource}/finalizers`], verbs: ['update'] },
          ]),
      },
    ),
    rbac(
      'ClusterRoleBinding',
      { name: user.name },
      { roleRef: clusterRoleRef(`oracle-gc-all-but-${withheld}`), subjects: userSubject(user.name) },
    ),
  ]);
}

/** Where the replayed OwnerReferencesPermissionEnforcement rows create and update their pods. */
export const ownerReferenceRowNamespace = 'oracle-exempt';
/** The pod a replayed update row patches, stored with the row's old references. */
export const ownerReferenceRowPodName = (index: number) => `oracle-owner-reference-row-${index}`;

const rowOwnerNames = ['first', 'second', 'rc1', 'rc2', 'ds1', 'node', 'node1'];

/**
 * An upstream row's references as the API takes them: the kind upstream leaves out of TestGCAdmission's
 * (its references never block, so the kind is never asked about), and a uid per owner, the same in the
 * old and the new pod (upstream leaves every uid empty; no row has a reference that blocks both before
 * and after, so telling its owners apart changes no row's answer).
 */
export function realOwnerReferences(references: readonly OwnerReference[] | undefined): OwnerReference[] {
  return (references ?? []).map((reference) => {
    const index = rowOwnerNames.indexOf(reference.name);
    if (index < 0) throw new Error(`no uid for upstream's owner ${reference.name}`);
    const given: Partial<OwnerReference> = reference;
    return {
      ...reference,
      apiVersion: given.apiVersion ?? 'v1',
      kind: given.kind ?? 'ReplicationController',
      uid: `00000000-0000-0000-0000-0000000006${String(index).padStart(2, '0')}`,
    };
  });
}

/** Owners that exist (the plugin never reads them, but a real dependent would have them). */
function ownerObjects(): object[] {
  return [
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'owner', namespace: 'oracle-plain' }, data: { role: 'owner' } },
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'other', namespace: 'oracle-plain' }, data: { role: 'owner' } },
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'owner', namespace: 'oracle-plain' },
      spec: {
        replicas: 0,
        selector: { matchLabels: { app: 'owner' } },
        template: { metadata: { labels: { app: 'owner' } }, spec: { containers: [{ name: 'app', image: 'registry.example/app:1' }] } },
      },
    },
  ];
}

/** A pod the update cases change (as stored: each server's own admission already ran on it). */
export const existingPodName = 'existing';
export const existingPod = (namespace: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: existingPodName, namespace, labels: { app: 'existing' } },
  spec: { containers: [{ name: 'app', image: 'registry.example/app:1', imagePullPolicy: 'IfNotPresent' }], tolerations: [] as object[] },
});

export const existingServiceName = 'existing';
export const existingService = (namespace: string) => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: existingServiceName, namespace },
  spec: { ports: [{ port: 80, targetPort: 8080 }], selector: { app: 'existing' } },
});

/** Namespaces whose annotations let the existing pod in on both servers. */
export const namespacesWithExistingObjects = ['oracle-plain', 'oracle-exempt', 'oracle-tolerant', 'team-a'];

/** Every object of the world, in the order kubectl should apply them. */
export function worldObjects(): object[] {
  const objects: object[] = [];
  for (const [name, annotations] of Object.entries(namespaces)) {
    objects.push({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, annotations, labels: namespaceLabels[name] ?? {} } });
    objects.push(...serviceAccounts(name));
  }
  // kube-system's pods are not sent to our webhook, but the in-tree ServiceAccount plugin needs its account.
  objects.push({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: 'kube-system' } });
  objects.push(
    ...runtimeClasses,
    ...lateMutationPolicy,
    ...ownerCrds,
    ...ownerRbac(),
    ...upstreamGcRbac(),
    ...ownerObjects(),
    ...nodes(),
    ...rowRuntimeClasses(),
  );
  const writer = {
    apiGroups: [''],
    resources: [
      'pods',
      'pods/ephemeralcontainers',
      'pods/binding',
      'services',
      'configmaps',
      'persistentvolumeclaims',
      'persistentvolumes',
    ],
    verbs: ['get', 'list', 'create', 'update', 'patch'],
  };
  const storageWriter = { apiGroups: ['storage.k8s.io'], resources: ['volumeattributesclasses'], verbs: ['get', 'list', 'create'] };
  objects.push(
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'oracle-writer' },
      rules: [writer, storageWriter],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'oracle-writers' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'oracle-writer' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'oracle-writers' }],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'bob-writes-here', namespace: 'oracle-plain' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'oracle-writer' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'bob' }],
    },
  );
  return objects;
}

/**
 * What both servers are given: the plugins' configuration (chart values, which the chart renders into
 * the AdmissionConfiguration file), the objects applied before our webhook starts, the CRDs among them
 * to wait for, and the objects created once both servers' admission is in place.
 */
export interface OracleWorld {
  configuration: Readonly<Record<string, object>>;
  objects(): object[];
  /**
   * Objects the plugins under test would refuse to create or would change (Services with external IPs,
   * a pod that pulls IfNotPresent, whose updates upstream's rows test): written before any plugin is
   * on — the in-tree server is first started without them on the same etcd data, our webhook is not
   * started yet.
   */
  preexisting?: object[];
  crds: readonly { metadata: { name: string } }[];
  existing(): object[];
}

/** The world the generated cases and most replayed rows run in. */
export const oracleWorld: OracleWorld = {
  configuration: pluginConfiguration,
  objects: worldObjects,
  crds: ownerCrds,
  existing: existingObjects,
};

/** Created after the world, once both servers' admission is in place; each server admits them itself. */
export function existingObjects(): object[] {
  const owned = existingPod(ownedPodNamespace);
  Object.assign(owned.metadata, { name: ownedPodName, ownerReferences: [ownedPodReference] });
  const locked = existingPod(lockedPodNamespace);
  Object.assign(locked.metadata, { name: lockedPodName });
  Object.assign(locked.spec, { serviceAccountName: 'locked' });
  return [
    ...namespacesWithExistingObjects.flatMap((namespace) => [existingPod(namespace), existingService(namespace)]),
    owned,
    locked,
    ...ownerReferenceRowPods(),
  ];
}

/** The old pod of each OwnerReferencesPermissionEnforcement update row on pods themselves (the admin may set any reference). */
function ownerReferenceRowPods(): object[] {
  return ownerReferenceRows.flatMap((row, index) => {
    if (row.oldObj === undefined || row.resource !== 'pods' || row.subresource !== undefined) return [];
    const pod = existingPod(ownerReferenceRowNamespace);
    Object.assign(pod.metadata, {
      name: ownerReferenceRowPodName(index),
      ownerReferences: realOwnerReferences(row.oldObj.metadata?.ownerReferences),
    });
    return [pod];
  });
}
