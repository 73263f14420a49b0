// The replayed upstream rows as the oracle would send them, checked without a server: which rows of
// AlwaysPullImages', PodTopologyLabels', RuntimeClass's and StorageObjectInUseProtection's tables
// become requests, and that each is a request the API would take (a pod whose containers have images
// and whose image volumes have references, a valid name, an update of a pod the world stores).
import { describe, expect, it } from 'vitest';
import type { Pod } from '../../src/api/core.ts';
import { admitCases, updatePodCases } from '../../src/plugins/alwayspullimages/testdata/upstream-cases.ts';
import { podTopologyCases } from '../../src/plugins/podtopologylabels/testdata/upstream-cases.ts';
import { setOverheadCases, setSchedulingCases } from '../../src/plugins/runtimeclass/testdata/upstream-cases.ts';
import { admitCases as storageCases } from '../../src/plugins/storageobjectinuseprotection/testdata/upstream-cases.ts';
import { configuredRowGroups } from './configured-rows.ts';
import type { OracleCase } from './generate.ts';
import { upstreamCases } from './upstream-rows.ts';
import { runtimeClassRowName, topologyRowNodeName, worldObjects } from './world.ts';

const dnsLabel = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

function expectRealPod(object: unknown): Pod {
  const pod = object as Pod;
  expect(pod.apiVersion).toBe('v1');
  expect(pod.kind).toBe('Pod');
  expect(pod.metadata?.name).toMatch(dnsLabel);
  expect(pod.metadata?.name?.length).toBeLessThanOrEqual(63);
  const containers = [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])];
  expect(pod.spec?.containers?.length).toBeGreaterThan(0);
  for (const container of containers) {
    expect(container.name).toMatch(dnsLabel);
    expect(container.image, container.name).toMatch(/\S/);
  }
  for (const volume of pod.spec?.volumes ?? []) {
    if (volume.image !== undefined) expect(volume.image.reference, volume.name).toMatch(/\S/);
  }
  return pod;
}

const withPolicies = (pod: Pod, policy: string): Pod => {
  const copy = structuredClone(pod);
  for (const c of [...(copy.spec?.initContainers ?? []), ...(copy.spec?.containers ?? [])]) c.imagePullPolicy = policy;
  for (const v of copy.spec?.volumes ?? []) if (v.image !== undefined) v.image.pullPolicy = policy;
  return copy;
};

describe("AlwaysPullImages' rows as pod creates", () => {
  const cases = upstreamCases(['AlwaysPullImages']);

  it("replays TestAdmission's one row, and only when the plugin is selected", () => {
    expect(cases.map((c) => c.id)).toEqual(['upstream AlwaysPullImages: TestAdmission']);
    expect(admitCases).toHaveLength(1);
    expect(upstreamCases(['ExtendedResourceToleration', 'DenyServiceExternalIPs']).some((c) => c.plugin === 'AlwaysPullImages')).toBe(
      false,
    );
  });

  it('sends each as a real pod, the row pod with images and references added, its pull policies as upstream wrote them', () => {
    for (const oracleCase of cases) {
      expect(oracleCase.plugin).toBe('AlwaysPullImages');
      expect(oracleCase.request).toMatchObject({ operation: 'create', resource: 'pods', namespace: 'oracle-exempt' });
      const pod = expectRealPod(oracleCase.request.object);
      const row = admitCases[0]!.pod.spec!;
      expect(pod.spec?.containers?.map((c) => [c.name, c.imagePullPolicy])).toEqual(
        row.containers?.map((c) => [c.name, c.imagePullPolicy]),
      );
      expect(pod.spec?.initContainers?.map((c) => [c.name, c.imagePullPolicy])).toEqual(
        row.initContainers?.map((c) => [c.name, c.imagePullPolicy]),
      );
      expect(pod.spec?.volumes?.map((v) => [v.name, v.image?.pullPolicy])).toEqual(row.volumes?.map((v) => [v.name, v.image?.pullPolicy]));
      expect(oracleCase.upstreamExpects).toBe('admitted');
    }
  });

  it("checks the in-tree pod against TestAdmission's expectation: every pull policy Always", () => {
    const [oracleCase] = cases as [OracleCase];
    const sent = oracleCase.request.object as Pod;
    expect(oracleCase.upstreamResult?.(withPolicies(sent, 'Always'))).toBeUndefined();
    expect(oracleCase.upstreamResult?.(sent)).toBe(
      'every pull policy Always, the in-tree server left init1: (none), init2: Never, init3: IfNotPresent, ' +
        'ctr1: (none), ctr2: Never, ctr3: IfNotPresent, volume1: Never, volume2: IfNotPresent',
    );
  });
});

describe("AlwaysPullImages' TestUpdatePod row as an update of a stored pod", () => {
  const groups = configuredRowGroups(['AlwaysPullImages']);

  it('replays the row that keeps the pull policy, in one group with the plugin on', () => {
    expect(groups.map((g) => [g.name, g.plugins, g.cases.map((c) => c.id)])).toEqual([
      ['upstream fallbacks', ['AlwaysPullImages'], ['upstream AlwaysPullImages: update IfNotPresent pod annotations']],
    ]);
    expect(updatePodCases.filter((row) => row.expectIgnore)).toHaveLength(1);
  });

  it("patches the pod the world stored before the plugin was on with the row's annotations", () => {
    const [group] = groups as [(typeof groups)[number]];
    const [oracleCase] = group.cases as [OracleCase];
    const request = oracleCase.request;
    expect(request).toMatchObject({
      operation: 'update',
      resource: 'pods',
      change: { patch: 'merge', body: { metadata: { annotations: { test: 'test' } } } },
    });
    expect(request.subresource).toBeUndefined();
    const stored = (group.world.preexisting ?? []).map((o) => o as Pod);
    const pod = stored.find((p) => p.metadata?.name === request.name && p.metadata?.namespace === request.namespace);
    expect(expectRealPod(pod).spec?.containers?.[0]?.imagePullPolicy).toBe('IfNotPresent');
    const namespaces = group.world.objects() as Array<{ kind: string; metadata: { name: string } }>;
    expect(namespaces.filter((o) => o.kind === 'Namespace').map((o) => o.metadata.name)).toContain(request.namespace);
    expect(oracleCase.upstreamExpects).toBe('admitted');
    expect(oracleCase.upstreamResult?.(pod)).toBeUndefined();
    expect(oracleCase.upstreamResult?.(withPolicies(pod!, 'Always'))).toBe('imagePullPolicy IfNotPresent, the in-tree server made Always');
  });
});

describe("PodTopologyLabels' rows as pod creates on the row's node and as Bindings", () => {
  const cases = upstreamCases(['PodTopologyLabels']);
  const replayed = podTopologyCases.filter((row) => !row.featureDisabled);

  it('replays every row but the gate-off one, each way once, and only when the plugin is selected', () => {
    expect(cases.map((c) => c.id)).toEqual(
      replayed.flatMap((row) => [
        `upstream PodTopologyLabels: ${row.name} (pod create)`,
        `upstream PodTopologyLabels: ${row.name} (binding)`,
      ]),
    );
    expect(podTopologyCases.length - replayed.length).toBe(1);
    expect(upstreamCases(['AlwaysPullImages']).some((c) => c.plugin === 'PodTopologyLabels')).toBe(false);
  });

  it("sends a real pod on a node of the world holding the row's labels, and binds an unscheduled one with the row's Binding labels", () => {
    const nodes = new Map(
      worldObjects()
        .filter(
          (o): o is { kind: 'Node'; metadata: { name: string; labels?: Record<string, string> } } =>
            (o as { kind?: string }).kind === 'Node',
        )
        .map((node) => [node.metadata.name, node.metadata.labels]),
    );
    for (const [i, oracleCase] of cases.entries()) {
      const row = replayed[Math.floor(i / 2)]!;
      const rowIndex = podTopologyCases.indexOf(row);
      if (oracleCase.request.operation === 'create') {
        const pod = expectRealPod(oracleCase.request.object);
        expect(pod.spec?.nodeName).toBe(topologyRowNodeName(rowIndex));
        expect(pod.metadata?.labels).toEqual(row.existingBindingLabels);
      } else {
        expect(oracleCase.request.operation).toBe('bind');
        const pod = expectRealPod(oracleCase.request.pod);
        expect(pod.spec?.nodeName).toBeUndefined();
        const binding = oracleCase.request.object as { metadata: { name: string; labels?: object }; target: object };
        expect(binding.metadata.name).toBe(pod.metadata?.name);
        expect(binding.metadata.labels).toEqual(row.existingBindingLabels);
        expect(binding.target).toEqual({ apiVersion: 'v1', kind: 'Node', name: topologyRowNodeName(rowIndex) });
      }
      expect(nodes.get(topologyRowNodeName(rowIndex))).toEqual(row.targetNodeLabels);
      // The check of the answer holds for the row's expectation and fails for anything else.
      const expected = { metadata: { labels: row.expectedBindingLabels ?? {} } };
      expect(oracleCase.upstreamResult?.(expected)).toBeUndefined();
      expect(oracleCase.upstreamResult?.({ metadata: { labels: { ...row.expectedBindingLabels, other: 'x' } } })).toMatch(/^labels /);
    }
  });
});

describe("RuntimeClass's and StorageObjectInUseProtection's rows as creates", () => {
  it("replays every TestSetOverhead and TestSetScheduling row as a pod naming a RuntimeClass of the world that is the row's", () => {
    const cases = upstreamCases(['RuntimeClass']);
    const rows = [
      ...setOverheadCases.map((row, i) => ['overhead', i, row] as const),
      ...setSchedulingCases.map((row, i) => ['scheduling', i, row] as const),
    ];
    expect(cases.map((c) => c.id)).toEqual(rows.map(([, , row]) => `upstream RuntimeClass: ${row.name}`));
    const classes = new Map(
      worldObjects()
        .filter((o): o is { kind: 'RuntimeClass'; metadata: { name: string } } => (o as { kind?: string }).kind === 'RuntimeClass')
        .map((rc) => [rc.metadata.name, rc]),
    );
    for (const [i, oracleCase] of cases.entries()) {
      const [table, index, row] = rows[i]!;
      const pod = expectRealPod(oracleCase.request.object);
      expect(pod.spec?.runtimeClassName).toBe(runtimeClassRowName(table, index));
      expect(classes.get(runtimeClassRowName(table, index))).toEqual({
        ...row.runtimeClass,
        metadata: { name: runtimeClassRowName(table, index) },
      });
      expect(pod.spec?.overhead).toEqual(row.pod.spec?.overhead);
      expect(oracleCase.upstreamExpects).toBe(row.error === undefined ? 'admitted' : 'denied');
      if (row.expectedPod !== undefined) {
        expect(oracleCase.upstreamResult?.(row.expectedPod)).toBeUndefined();
        expect(oracleCase.upstreamResult?.({ spec: { ...row.expectedPod.spec, overhead: { cpu: '9' } } })).toMatch(/^overhead /);
      }
    }
  });

  it('replays each TestAdmit row but the two with the VolumeAttributesClass gate off, checking the finalizers', () => {
    const cases = upstreamCases(['StorageObjectInUseProtection']);
    const rows = storageCases.filter((row) => row.vacFeatureGate || row.resource.resource !== 'volumeattributesclasses');
    expect(rows).toHaveLength(storageCases.length - 2);
    expect(cases.map((c) => [c.request.resource, c.request.namespace === ''])).toEqual(
      rows.map((row) => [row.resource.resource, row.resource.resource !== 'persistentvolumeclaims']),
    );
    for (const [i, oracleCase] of cases.entries()) {
      const row = rows[i]!;
      const object = oracleCase.request.object as { metadata: { name: string; finalizers?: string[] } };
      expect(object.metadata.name).toMatch(dnsLabel);
      expect(object.metadata.finalizers).toEqual(row.object.metadata?.finalizers);
      expect(oracleCase.upstreamResult?.({ metadata: { finalizers: row.expected.metadata?.finalizers } })).toBeUndefined();
      expect(oracleCase.upstreamResult?.({ metadata: {} })).toMatch(/^finalizers /);
    }
  });
});
