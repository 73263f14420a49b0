// PodNodeSelector's and PodTolerationRestriction's upstream rows, DenyServiceExternalIPs' update
// rows and AlwaysPullImages' pod update row, replayed as real requests. Each
// row configures the plugin as well as the namespace (a cluster default node selector, a whitelist
// for the row's namespace, cluster default tolerations, a cluster whitelist), and kube-apiserver reads
// its AdmissionConfiguration only at start-up, so the rows run on their own server pairs: one per
// cluster configuration they need. A cluster default only matters to a row whose namespace has no
// annotation of that kind (upstream falls back to it only then), so two pairs carry every row. Each
// row has a namespace of its own with the row's annotations, plus an empty annotation of the other
// plugin's kinds so that the other plugin's cluster configuration never reaches it.
//
// What a real cluster needs and the unit test does not: a container image, DNS names, and in a
// non-empty toleration whitelist the not-ready and unreachable tolerations DefaultTolerationSeconds
// (on by default, before PodTolerationRestriction) adds to every pod.
import type { Pod, Toleration } from '../../src/api/core.ts';
import { updatePodCases as pullPolicyUpdateCases, type UpdatePodCase } from '../../src/plugins/alwayspullimages/testdata/upstream-cases.ts';
import { admissionCases as externalIPCases } from '../../src/plugins/denyserviceexternalips/testdata/upstream-cases.ts';
import {
  podAdmissionCases as nodeSelectorCases,
  type PodNodeSelectorCase,
} from '../../src/plugins/podnodeselector/testdata/upstream-cases.ts';
import {
  type PodTolerationRestrictionCase,
  podAdmissionCases as tolerationCases,
} from '../../src/plugins/podtolerationrestriction/testdata/upstream-cases.ts';
import type { OracleCase } from './generate.ts';
import type { OraclePlugin } from './servers.ts';
import type { OracleWorld } from './world.ts';

const nodeSelectorAnnotation = 'scheduler.alpha.kubernetes.io/node-selector';
const defaultTolerationsAnnotation = 'scheduler.alpha.kubernetes.io/defaultTolerations';
const whitelistAnnotation = 'scheduler.alpha.kubernetes.io/tolerationsWhitelist';
const neutralTolerations = { [defaultTolerationsAnnotation]: '[]', [whitelistAnnotation]: '[]' };
const addedByDefaultTolerationSeconds: Toleration[] = [
  { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
];

/** One server pair's worth of rows: the plugins, the configuration and namespaces they need, the cases. */
export interface RowGroup {
  name: string;
  plugins: readonly OraclePlugin[];
  world: OracleWorld;
  cases: OracleCase[];
}

interface GroupBuilder {
  nodeSelector: { clusterDefaultNodeSelector: string; namespaceWhitelists: Record<string, string> };
  tolerations: { defaultTolerations: Toleration[]; whitelist: Toleration[] };
  namespaces: Record<string, Record<string, string>>;
  preexisting: object[];
  cases: OracleCase[];
}

const newGroup = (clusterDefaultNodeSelector: string, defaultTolerations: Toleration[], whitelist: Toleration[]): GroupBuilder => ({
  nodeSelector: { clusterDefaultNodeSelector, namespaceWhitelists: {} },
  tolerations: { defaultTolerations, whitelist },
  namespaces: {},
  preexisting: [],
  cases: [],
});

const canonical = (items: readonly unknown[]) => JSON.stringify(items.map((item) => JSON.stringify(item)).sort());

/** The row's merged node selector, against what the in-tree server made of the pod. */
const expectNodeSelector =
  (expected: Record<string, string>) =>
  (admitted: unknown): string | undefined => {
    const actual = (admitted as { spec?: { nodeSelector?: Record<string, string> } }).spec?.nodeSelector ?? {};
    return canonical(Object.entries(actual)) === canonical(Object.entries(expected))
      ? undefined
      : `nodeSelector ${JSON.stringify(expected)}, the in-tree server made ${JSON.stringify(actual)}`;
  };

/** The row's merged tolerations as a set (upstream's test uses ElementsMatch), besides what DefaultTolerationSeconds added. */
const expectTolerations =
  (expected: readonly Toleration[]) =>
  (admitted: unknown): string | undefined => {
    const added = (t: Toleration) =>
      addedByDefaultTolerationSeconds.some((d) => d.key === t.key && d.effect === t.effect) && t.tolerationSeconds === 300;
    const actual = ((admitted as { spec?: { tolerations?: Toleration[] } }).spec?.tolerations ?? []).filter((t) => !added(t));
    return canonical(actual) === canonical(expected)
      ? undefined
      : `tolerations ${JSON.stringify(expected)}, the in-tree server made ${JSON.stringify(actual)}`;
  };

const podCase = (plugin: OraclePlugin, row: string, namespace: string, spec: object, admit: boolean): OracleCase => ({
  id: `upstream ${plugin}: ${row}`,
  plugin,
  request: {
    operation: 'create',
    resource: 'pods',
    namespace,
    object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'row' }, spec },
    // As the admin: these worlds hold no RBAC, and the row is about the plugin.
  },
  upstreamExpects: admit ? 'admitted' : 'denied',
});

function addNodeSelectorRow(group: GroupBuilder, row: PodNodeSelectorCase, index: number): void {
  const namespace = `pns-row-${index}`;
  group.namespaces[namespace] = {
    ...neutralTolerations,
    ...(row.namespaceNodeSelector === undefined ? {} : { [nodeSelectorAnnotation]: row.namespaceNodeSelector }),
  };
  if (row.whitelist !== '') group.nodeSelector.namespaceWhitelists[namespace] = row.whitelist;
  const spec = { nodeSelector: row.podNodeSelector, containers: [{ name: 'main', image: 'busybox' }] };
  const rowCase = podCase('PodNodeSelector', row.testName, namespace, spec, row.admit);
  if (row.mergedNodeSelector !== undefined) rowCase.upstreamResult = expectNodeSelector(row.mergedNodeSelector);
  group.cases.push(rowCase);
}

function addTolerationRow(group: GroupBuilder, row: PodTolerationRestrictionCase, index: number): void {
  const namespace = `ptr-row-${index}`;
  const annotations: Record<string, string> = { [nodeSelectorAnnotation]: '' };
  if (row.namespaceTolerations !== undefined) annotations[defaultTolerationsAnnotation] = JSON.stringify(row.namespaceTolerations);
  if (row.whitelist !== undefined)
    annotations[whitelistAnnotation] = JSON.stringify(
      row.whitelist.length === 0 ? [] : [...row.whitelist, ...addedByDefaultTolerationSeconds],
    );
  group.namespaces[namespace] = annotations;
  const pod = row.pod();
  const spec = {
    containers: (pod.spec?.containers ?? []).map((container) => ({ ...container, image: 'busybox' })),
    ...(row.podTolerations.length > 0 ? { tolerations: row.podTolerations } : {}),
  };
  const rowCase = podCase('PodTolerationRestriction', row.testName, namespace, spec, row.admit);
  if (row.mergedTolerations !== undefined) rowCase.upstreamResult = expectTolerations(row.mergedTolerations);
  group.cases.push(rowCase);
}

/**
 * DenyServiceExternalIPs' update rows: the old Service, external IPs and all, is written before the
 * plugin is on, and the row is an update to the new Service's external IPs.
 */
function addExternalIPUpdateRow(group: GroupBuilder, row: (typeof externalIPCases)[number], index: number): void {
  if (row.oldSvc === undefined) return;
  const namespace = 'dseip-rows';
  group.namespaces[namespace] = { [nodeSelectorAnnotation]: '', ...neutralTolerations };
  const name = `svc-row-${index}`;
  group.preexisting.push({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace },
    spec: { ports: [{ port: 80 }], ...row.oldSvc.spec },
  });
  const externalIPs = (row.newSvc.spec as { externalIPs?: string[] }).externalIPs ?? null;
  group.cases.push({
    id: `upstream DenyServiceExternalIPs: ${row.name}`,
    plugin: 'DenyServiceExternalIPs',
    request: { operation: 'update', resource: 'services', namespace, name, change: { patch: 'merge', body: { spec: { externalIPs } } } },
    upstreamExpects: row.fail ? 'denied' : 'admitted',
  });
}

/** The row's pull policy kept on the pod's first container. */
const expectPullPolicy =
  (expected: string | undefined) =>
  (admitted: unknown): string | undefined => {
    const actual = (admitted as Pod).spec?.containers?.[0]?.imagePullPolicy;
    return actual === expected ? undefined : `imagePullPolicy ${expected}, the in-tree server made ${actual}`;
  };

/**
 * AlwaysPullImages' TestUpdatePod rows. Pods have no finalizers subresource (the API answers 404), so
 * a row is sent as a merge patch of the pod itself, stored with the old pod's IfNotPresent before the
 * plugin is on; the plugin then leaves the pod alone because the update brings no new image, where
 * upstream's Admit did because of the subresource, and what the row checks, the pull policy kept, is
 * the same. The row that changes the image is not replayed: as an update of the pod the plugin sets
 * Always, and pod update validation refuses a changed pull policy (only the image may change), where
 * upstream's row, a subresource request, expects no error.
 */
function addPullPolicyUpdateRow(group: GroupBuilder, row: UpdatePodCase, index: number): void {
  if (!row.expectIgnore) return;
  const namespace = 'apull-rows';
  group.namespaces[namespace] = { [nodeSelectorAnnotation]: '', ...neutralTolerations };
  const name = `pod-row-${index}`;
  group.preexisting.push({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace }, spec: row.oldObject.spec });
  group.cases.push({
    id: `upstream AlwaysPullImages: ${row.name}`,
    plugin: 'AlwaysPullImages',
    request: {
      operation: 'update',
      resource: 'pods',
      namespace,
      name,
      change: { patch: 'merge', body: { metadata: { annotations: row.object.metadata?.annotations ?? null } } },
    },
    upstreamExpects: 'admitted',
    upstreamResult: expectPullPolicy(row.object.spec?.containers?.[0]?.imagePullPolicy),
  });
}

function worldOf(group: GroupBuilder): OracleWorld {
  return {
    configuration: { PodNodeSelector: group.nodeSelector, PodTolerationRestriction: group.tolerations },
    objects: () =>
      Object.entries(group.namespaces).map(([name, annotations]) => ({
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name, annotations },
      })),
    preexisting: group.preexisting,
    crds: [],
    existing: () => [],
  };
}

/**
 * The rows of the selected plugins, in two groups: upstream's own cluster defaults where a row's
 * namespace falls back to them, and one group for the rows whose fallback differs (no cluster default
 * node selector; the one row with a cluster toleration whitelist).
 */
export function configuredRowGroups(plugins: readonly OraclePlugin[]): RowGroup[] {
  const main = newGroup('infra = false', [{ key: 'testKey', operator: 'Equal', value: 'testValue', effect: 'NoSchedule' }], []);
  const fallback = newGroup('', [], [{ key: 'testKey', operator: 'Equal', value: 'testValue1', effect: 'NoSchedule' }]);
  if (plugins.includes('PodNodeSelector'))
    nodeSelectorCases.forEach((row, i) => {
      // Rows whose namespace has a selector never see the cluster default; the others need theirs.
      const needsDefault = row.namespaceNodeSelector === undefined;
      if (needsDefault && row.defaultNodeSelector !== main.nodeSelector.clusterDefaultNodeSelector) {
        if (row.defaultNodeSelector !== fallback.nodeSelector.clusterDefaultNodeSelector)
          throw new Error(`PodNodeSelector row "${row.testName}" needs a cluster default no group has`);
        addNodeSelectorRow(fallback, row, i);
      } else addNodeSelectorRow(main, row, i);
    });
  if (plugins.includes('PodTolerationRestriction'))
    tolerationCases.forEach((row, i) => {
      // The cluster whitelist applies to rows without a namespace whitelist; the cluster default to rows without namespace tolerations.
      if (row.clusterWhitelist !== undefined) {
        if (
          JSON.stringify(row.clusterWhitelist) !== JSON.stringify(fallback.tolerations.whitelist) ||
          (row.namespaceTolerations === undefined && (row.defaultClusterTolerations ?? []).length > 0)
        )
          throw new Error(`PodTolerationRestriction row "${row.testName}" needs a cluster configuration no group has`);
        addTolerationRow(fallback, row, i);
      } else {
        if (
          row.namespaceTolerations === undefined &&
          JSON.stringify(row.defaultClusterTolerations ?? []) !== JSON.stringify(main.tolerations.defaultTolerations)
        )
          throw new Error(`PodTolerationRestriction row "${row.testName}" needs cluster default tolerations no group has`);
        addTolerationRow(main, row, i);
      }
    });
  // The update rows ride with the smaller group; their plugin looks at Services only.
  if (plugins.includes('DenyServiceExternalIPs'))
    for (const [i, row] of externalIPCases.entries()) addExternalIPUpdateRow(fallback, row, i);
  // So does AlwaysPullImages' row: the other rows' pods use an untagged image, which the API defaults to pull Always anyway.
  if (plugins.includes('AlwaysPullImages'))
    for (const [i, row] of pullPolicyUpdateCases.entries()) addPullPolicyUpdateRow(fallback, row, i);
  const selected = (['PodNodeSelector', 'PodTolerationRestriction', 'DenyServiceExternalIPs', 'AlwaysPullImages'] as const).filter((p) =>
    plugins.includes(p),
  );
  return [
    { name: 'upstream cluster defaults', group: main },
    { name: 'upstream fallbacks', group: fallback },
  ]
    .filter(({ group }) => group.cases.length > 0)
    .map(({ name, group }) => ({ name, plugins: selected, world: worldOf(group), cases: group.cases }));
}
