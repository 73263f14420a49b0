// Upstream plugin/pkg/admission/podnodeselector/admission_test.go TestPodAdmission, every row, as
// data: the plugin's unit test and the offline review test both run them.

export interface PodNodeSelectorCase {
  testName: string;
  /** clusterNodeSelectors["clusterDefaultNodeSelector"]. */
  defaultNodeSelector: string;
  /**
   * The namespace's node-selector annotation; undefined for upstream's ignoreTestNamespaceNodeSelector
   * rows, where the namespace is not in the informer cache and the live GET finds it unannotated.
   */
  namespaceNodeSelector: string | undefined;
  /** clusterNodeSelectors["testNamespace"]. */
  whitelist: string;
  podNodeSelector: Record<string, string>;
  /** The pod's node selector after admission, when admitted. */
  mergedNodeSelector: Record<string, string> | undefined;
  admit: boolean;
}

export const podAdmissionCases: PodNodeSelectorCase[] = [
  {
    testName: 'No node selectors',
    defaultNodeSelector: '',
    namespaceNodeSelector: undefined,
    whitelist: '',
    podNodeSelector: {},
    mergedNodeSelector: {},
    admit: true,
  },
  {
    testName: 'Default node selector and no conflicts',
    defaultNodeSelector: 'infra = false',
    namespaceNodeSelector: undefined,
    whitelist: '',
    podNodeSelector: {},
    mergedNodeSelector: { infra: 'false' },
    admit: true,
  },
  {
    testName: 'TestNamespace node selector with whitespaces and no conflicts',
    defaultNodeSelector: '',
    namespaceNodeSelector: ' infra = false ',
    whitelist: '',
    podNodeSelector: {},
    mergedNodeSelector: { infra: 'false' },
    admit: true,
  },
  {
    testName: 'Default and namespace node selector, no conflicts',
    defaultNodeSelector: 'infra = false',
    namespaceNodeSelector: 'infra=true',
    whitelist: '',
    podNodeSelector: {},
    mergedNodeSelector: { infra: 'true' },
    admit: true,
  },
  {
    testName: 'Empty namespace node selector and no conflicts',
    defaultNodeSelector: 'infra = false',
    namespaceNodeSelector: '',
    whitelist: '',
    podNodeSelector: {},
    mergedNodeSelector: {},
    admit: true,
  },
  {
    testName: 'TestNamespace and pod node selector, no conflicts',
    defaultNodeSelector: 'infra = false',
    namespaceNodeSelector: 'infra=true',
    whitelist: '',
    podNodeSelector: { env: 'test' },
    mergedNodeSelector: { infra: 'true', env: 'test' },
    admit: true,
  },
  {
    testName: 'Conflicting pod and namespace node selector, one label',
    defaultNodeSelector: 'env = test',
    namespaceNodeSelector: 'infra=true',
    whitelist: '',
    podNodeSelector: { infra: 'false' },
    mergedNodeSelector: undefined,
    admit: false,
  },
  {
    testName: 'Conflicting pod and namespace node selector, multiple labels',
    defaultNodeSelector: 'env=dev',
    namespaceNodeSelector: 'infra=false, env = test',
    whitelist: '',
    podNodeSelector: { env: 'dev', color: 'blue' },
    mergedNodeSelector: undefined,
    admit: false,
  },
  {
    testName: 'Merged pod node selectors satisfy the whitelist',
    defaultNodeSelector: 'env=dev',
    namespaceNodeSelector: 'infra=false, env = dev',
    whitelist: 'env=dev, infra=false, color=blue',
    podNodeSelector: { env: 'dev', color: 'blue' },
    mergedNodeSelector: { infra: 'false', env: 'dev', color: 'blue' },
    admit: true,
  },
  {
    testName: 'Merged pod node selectors conflict with the whitelist',
    defaultNodeSelector: 'env=dev',
    namespaceNodeSelector: 'infra=false, env = dev',
    whitelist: 'env=dev, infra=true, color=blue',
    podNodeSelector: { env: 'dev', color: 'blue' },
    mergedNodeSelector: undefined,
    admit: false,
  },
  {
    testName: 'Default node selector conflict with the whitelist',
    defaultNodeSelector: 'env=dev',
    // Upstream's row ignores the namespace selector, but its namespace object still carries the
    // previous row's annotation (the rows share it); the pod is denied either way.
    namespaceNodeSelector: 'infra=false, env = dev',
    whitelist: 'env=prd',
    podNodeSelector: {},
    mergedNodeSelector: undefined,
    admit: false,
  },
];
