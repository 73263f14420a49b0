// Upstream plugin/pkg/admission/podtopologylabels/admission_test.go TestPodTopology, every row, as
// data. Each row runs three ways upstream (a pod UPDATE, a pod CREATE, a Binding); the unit test runs
// all three. No row sets upstream's bindingTarget, so every Binding targets the Node below.

/** Upstream's node: every row binds to it, with the row's labels. */
export const nodeName = 'valid-test-node';
export const namespace = 'test-ns';
export const podName = 'testPod';

export interface PodTopologyCase {
  name: string;
  /** Labels on the node being bound to; undefined: none. */
  targetNodeLabels: Record<string, string> | undefined;
  /** Labels on the Binding (or pod) before admission, as the client or scheduler sent them. */
  existingBindingLabels: Record<string, string> | undefined;
  /** Labels after admission; upstream compares semantically, so undefined and {} are the same. */
  expectedBindingLabels: Record<string, string> | undefined;
  /** The PodTopologyLabelsAdmission gate off. */
  featureDisabled: boolean;
}

export const podTopologyCases: PodTopologyCase[] = [
  {
    name: 'copies topology.kubernetes.io/zone and region labels to binding labels',
    targetNodeLabels: {
      'topology.kubernetes.io/zone': 'zone1',
      'topology.kubernetes.io/region': 'region1',
      'topology.kubernetes.io/arbitrary': 'something',
      'non-topology.kubernetes.io/label': 'something',
    },
    existingBindingLabels: undefined,
    expectedBindingLabels: { 'topology.kubernetes.io/zone': 'zone1', 'topology.kubernetes.io/region': 'region1' },
    featureDisabled: false,
  },
  {
    name: 'does not copy arbitrary topology labels',
    targetNodeLabels: { 'topology.kubernetes.io/zone': 'zone1', 'topology.kubernetes.io/arbitrary': 'something' },
    existingBindingLabels: undefined,
    expectedBindingLabels: { 'topology.kubernetes.io/zone': 'zone1' },
    featureDisabled: false,
  },
  {
    name: 'does not copy topology labels that use a subdomain',
    targetNodeLabels: { 'topology.kubernetes.io/region': 'region1', 'sub.topology.kubernetes.io/zone': 'value' },
    existingBindingLabels: undefined,
    expectedBindingLabels: { 'topology.kubernetes.io/region': 'region1' },
    featureDisabled: false,
  },
  {
    name: "does not copy label keys that don't contain a / character",
    targetNodeLabels: { 'topology.kubernetes.io': 'value' },
    existingBindingLabels: {},
    expectedBindingLabels: undefined,
    featureDisabled: false,
  },
  {
    name: 'overwrites existing topology labels',
    targetNodeLabels: { 'topology.kubernetes.io/zone': 'newValue' },
    existingBindingLabels: { 'topology.kubernetes.io/zone': 'oldValue' },
    expectedBindingLabels: { 'topology.kubernetes.io/zone': 'newValue' },
    featureDisabled: false,
  },
  {
    name: 'does nothing if the SetPodTopologyLabels feature gate is disabled',
    targetNodeLabels: { 'topology.kubernetes.io/zone': 'zone1', 'topology.kubernetes.io/region': 'region1' },
    existingBindingLabels: undefined,
    expectedBindingLabels: {},
    featureDisabled: true,
  },
];

export function node(labels: Record<string, string> | undefined) {
  return { apiVersion: 'v1', kind: 'Node', metadata: labels === undefined ? { name: nodeName } : { name: nodeName, labels } };
}

/** Upstream's pod: testPod in test-ns, the row's labels, bound to the node when nodeName is given. */
export function pod(labels: Record<string, string> | undefined, nodeName?: string) {
  const metadata = labels === undefined ? { name: podName, namespace } : { name: podName, namespace, labels: { ...labels } };
  return { metadata, spec: nodeName === undefined ? {} : { nodeName } };
}

/** Upstream's Binding of testPod to the node, with the row's labels. */
export function binding(
  labels: Record<string, string> | undefined,
  target: { kind?: string; name?: string } = { kind: 'Node', name: nodeName },
) {
  const metadata = labels === undefined ? { name: podName, namespace } : { name: podName, namespace, labels: { ...labels } };
  return { metadata, target };
}
