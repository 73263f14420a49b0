// Upstream plugin/pkg/admission/podtolerationrestriction/admission_test.go TestPodAdmission, every
// row, as data: the plugin's unit test and the offline review test both run them.
import type { Toleration } from '../../../api/core.ts';
import type { PodForTolerations } from '../pod.ts';

export const burstablePod = (): PodForTolerations => ({
  metadata: { name: 'testPod', namespace: 'testNamespace' },
  spec: { containers: [{ name: 'test', resources: { limits: { cpu: '1000m' }, requests: { cpu: '500m' } } }] },
});
export const guaranteedPod = (): PodForTolerations => ({
  metadata: { name: 'testPod', namespace: 'testNamespace' },
  spec: { containers: [{ name: 'test', resources: { limits: { cpu: '1000m' }, requests: { cpu: '1000m' } } }] },
});
export const bestEffortPod = (): PodForTolerations => ({
  metadata: { name: 'testPod', namespace: 'testNamespace' },
  spec: { containers: [{ name: 'test' }] },
});

export const t = (value: string): Toleration => ({ key: 'testKey', operator: 'Equal', value, effect: 'NoSchedule' });
export const memoryPressure: Toleration = { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' };

export interface PodTolerationRestrictionCase {
  testName: string;
  pod: () => PodForTolerations;
  defaultClusterTolerations?: Toleration[];
  namespaceTolerations?: Toleration[];
  whitelist?: Toleration[];
  clusterWhitelist?: Toleration[];
  podTolerations: Toleration[];
  /** The pod's tolerations after admission, in the order upstream's merge gives them (its test compares them as a set). */
  mergedTolerations?: Toleration[];
  admit: boolean;
}

export const podAdmissionCases: PodTolerationRestrictionCase[] = [
  {
    testName: 'default cluster tolerations with empty pod tolerations and nil namespace tolerations',
    pod: bestEffortPod,
    defaultClusterTolerations: [t('testValue')],
    podTolerations: [],
    mergedTolerations: [t('testValue')],
    admit: true,
  },
  {
    testName: 'default cluster tolerations with pod tolerations specified',
    pod: bestEffortPod,
    defaultClusterTolerations: [t('testValue')],
    namespaceTolerations: [],
    podTolerations: [t('testValue')],
    mergedTolerations: [t('testValue')],
    admit: true,
  },
  {
    testName: 'namespace tolerations',
    pod: bestEffortPod,
    defaultClusterTolerations: [],
    namespaceTolerations: [t('testValue')],
    podTolerations: [t('testValue')],
    mergedTolerations: [t('testValue')],
    admit: true,
  },
  {
    testName: 'no pod tolerations',
    pod: bestEffortPod,
    defaultClusterTolerations: [],
    namespaceTolerations: [t('testValue')],
    podTolerations: [],
    mergedTolerations: [t('testValue')],
    admit: true,
  },
  // Upstream asserts the merged list with ElementsMatch; the order here is the one its merge produces.
  {
    testName: 'duplicate key pod and namespace tolerations',
    pod: bestEffortPod,
    defaultClusterTolerations: [],
    namespaceTolerations: [t('testValue')],
    podTolerations: [t('testValue1')],
    mergedTolerations: [t('testValue1'), t('testValue')],
    admit: true,
  },
  {
    testName: 'conflicting pod and default cluster tolerations but overridden by empty namespace tolerations',
    pod: bestEffortPod,
    defaultClusterTolerations: [t('testValue2')],
    namespaceTolerations: [],
    podTolerations: [t('testValue1')],
    mergedTolerations: [t('testValue1')],
    admit: true,
  },
  {
    testName: 'merged pod tolerations satisfy whitelist',
    pod: bestEffortPod,
    defaultClusterTolerations: [],
    namespaceTolerations: [t('testValue')],
    whitelist: [t('testValue')],
    podTolerations: [],
    mergedTolerations: [t('testValue')],
    admit: true,
  },
  {
    testName: 'Override default cluster toleration by empty namespace level toleration',
    pod: bestEffortPod,
    defaultClusterTolerations: [t('testValue')],
    namespaceTolerations: [],
    podTolerations: [],
    mergedTolerations: [],
    admit: true,
  },
  {
    testName: 'pod toleration conflicts with default cluster white list which is overridden by empty namespace whitelist',
    pod: bestEffortPod,
    whitelist: [],
    clusterWhitelist: [t('testValue1')],
    podTolerations: [t('testValue')],
    mergedTolerations: [t('testValue')],
    admit: true,
  },
  {
    testName: 'merged pod tolerations conflict with the whitelist',
    pod: bestEffortPod,
    defaultClusterTolerations: [],
    namespaceTolerations: [t('testValue')],
    whitelist: [t('testValue1')],
    podTolerations: [],
    admit: false,
  },
  {
    testName: 'added memoryPressure/DiskPressure for Burstable pod',
    pod: burstablePod,
    defaultClusterTolerations: [],
    namespaceTolerations: [t('testValue')],
    whitelist: [],
    podTolerations: [],
    mergedTolerations: [t('testValue'), memoryPressure],
    admit: true,
  },
  {
    testName: 'Pod with duplicate key tolerations should not be modified',
    pod: bestEffortPod,
    defaultClusterTolerations: [],
    namespaceTolerations: [],
    whitelist: [],
    podTolerations: [t('testValue'), t('testValue1')],
    mergedTolerations: [t('testValue'), t('testValue1')],
    admit: true,
  },
  {
    testName: 'added memoryPressure/DiskPressure for Guaranteed pod',
    pod: guaranteedPod,
    defaultClusterTolerations: [],
    namespaceTolerations: [t('testValue')],
    whitelist: [],
    podTolerations: [],
    mergedTolerations: [t('testValue'), memoryPressure],
    admit: true,
  },
];
