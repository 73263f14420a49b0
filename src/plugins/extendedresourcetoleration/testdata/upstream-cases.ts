// Upstream plugin/pkg/admission/extendedresourcetoleration/admission_test.go TestAdmit, every row,
// as data: the plugin's unit test and the offline review test both run them.
import type { PodSpec, Toleration } from '../../../api/core.ts';

export const extendedResource1 = 'example.com/device-ek';
export const extendedResource2 = 'example.com/device-do';
export const containerRequestingCPU = { name: 'cpu', resources: { requests: { cpu: '2' } } };
export const containerRequestingMemory = { name: 'memory', resources: { requests: { memory: '2048' } } };
export const containerRequestingExtendedResource1 = { name: 'ek', resources: { requests: { [extendedResource1]: '1' } } };
export const containerRequestingExtendedResource2 = { name: 'do', resources: { requests: { [extendedResource2]: '2' } } };
export const tolerationFor = (key: string): Toleration => ({ key, operator: 'Exists', effect: 'NoSchedule' });

export interface ExtendedResourceTolerationCase {
  description: string;
  spec: PodSpec;
  /** The pod's tolerations after admission (undefined: none were added). */
  expected: Toleration[] | undefined;
}

export const admitCases: ExtendedResourceTolerationCase[] = [
  { description: 'empty pod without any extended resources, expect no change in tolerations', spec: {}, expected: undefined },
  {
    description: 'pod with container without any extended resources, expect no change in tolerations',
    spec: { containers: [containerRequestingCPU] },
    expected: undefined,
  },
  {
    description: 'pod with init container without any extended resources, expect no change in tolerations',
    spec: { initContainers: [containerRequestingMemory] },
    expected: undefined,
  },
  {
    description: 'pod with container with extended resource, expect toleration to be added',
    spec: { containers: [containerRequestingExtendedResource1] },
    expected: [tolerationFor(extendedResource1)],
  },
  {
    description: 'pod with init container with extended resource, expect toleration to be added',
    spec: { initContainers: [containerRequestingExtendedResource2] },
    expected: [tolerationFor(extendedResource2)],
  },
  {
    description:
      'pod with existing tolerations and container with extended resource, expect existing tolerations to be preserved and new toleration to be added',
    spec: {
      containers: [containerRequestingCPU, containerRequestingExtendedResource1],
      tolerations: [{ key: 'foo', operator: 'Equal', value: 'bar', effect: 'NoSchedule' }],
    },
    expected: [{ key: 'foo', operator: 'Equal', value: 'bar', effect: 'NoSchedule' }, tolerationFor(extendedResource1)],
  },
  {
    description: 'pod with multiple extended resources, expect multiple tolerations to be added',
    spec: {
      containers: [containerRequestingMemory, containerRequestingExtendedResource1],
      initContainers: [containerRequestingCPU, containerRequestingExtendedResource2],
    },
    // Sorted by key.
    expected: [tolerationFor(extendedResource2), tolerationFor(extendedResource1)],
  },
  {
    description: 'pod with container requesting extended resource and existing correct toleration, expect no change in tolerations',
    spec: {
      containers: [containerRequestingCPU, containerRequestingMemory, containerRequestingExtendedResource1],
      tolerations: [tolerationFor(extendedResource1)],
    },
    expected: [tolerationFor(extendedResource1)],
  },
  {
    description:
      'pod with container requesting extended resource and existing toleration with the same key but different effect and value, expect existing tolerations to be preserved and new toleration to be added',
    spec: {
      containers: [containerRequestingCPU, containerRequestingMemory, containerRequestingExtendedResource1],
      tolerations: [{ key: extendedResource1, operator: 'Equal', value: 'foo', effect: 'NoExecute' }],
    },
    expected: [{ key: extendedResource1, operator: 'Equal', value: 'foo', effect: 'NoExecute' }, tolerationFor(extendedResource1)],
  },
  {
    description:
      'pod with wildcard toleration and container requesting extended resource, expect existing tolerations to be preserved and new toleration to be added',
    spec: {
      containers: [containerRequestingCPU, containerRequestingMemory, containerRequestingExtendedResource1],
      tolerations: [{ operator: 'Exists' }],
    },
    expected: [{ operator: 'Exists' }, tolerationFor(extendedResource1)],
  },
];
