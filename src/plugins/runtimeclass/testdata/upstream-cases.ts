// Upstream plugin/pkg/admission/runtimeclass/admission_test.go TestSetOverhead, TestSetScheduling,
// TestValidateInitialization, TestAdmit, TestValidate and TestValidateOverhead, every row, as data,
// with the test's builders (newOverheadValidPod, newSchedulingValidPod, its RuntimeClass objects) so
// the tables read like the originals. Upstream checks error or no error; each row here also carries
// the exact message.
import type { Container, Pod, Toleration } from '../../../api/core.ts';
import type { RuntimeClass } from '../../../ports/lookups.ts';

export const guaranteedResources = { limits: { cpu: '1', memory: '10' }, requests: { cpu: '1', memory: '10' } };

/** Upstream newOverheadValidPod. */
export function newOverheadValidPod(
  name: string,
  numContainers: number,
  resources: object,
  withOverhead: boolean,
  withEmptyOverhead: boolean,
): Pod {
  const containers: Container[] = Array.from({ length: numContainers }, (_, i) => ({
    name: `foo-${i}`,
    image: `foo:V${i}`,
    ...(Object.keys(resources).length > 0 ? { resources: structuredClone(resources) } : {}),
  }));
  const pod: Pod = { metadata: { name, namespace: 'test' }, spec: { containers } };
  if (withOverhead) pod.spec!.overhead = { cpu: '100m', memory: '1' };
  else if (withEmptyOverhead) pod.spec!.overhead = {};
  return pod;
}

/** Upstream newSchedulingValidPod; undefined stands for Go's nil. */
export function newSchedulingValidPod(
  name: string,
  nodeSelector: Record<string, string> | undefined,
  tolerations: Toleration[] | undefined,
): Pod {
  const spec: Pod['spec'] = {};
  if (nodeSelector !== undefined) spec.nodeSelector = nodeSelector;
  if (tolerations !== undefined) spec.tolerations = tolerations;
  return { metadata: { name, namespace: 'test' }, spec };
}

export function newRuntimeClass(name: string, extra: Partial<RuntimeClass> = {}): RuntimeClass {
  return { apiVersion: 'node.k8s.io/v1', kind: 'RuntimeClass', metadata: { name }, handler: 'bar', ...extra };
}

export const mismatch = (pod: string) =>
  `pods "${pod}" is forbidden: pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead`;
export const unaccounted = (pod: string) =>
  `pods "${pod}" is forbidden: pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead`;

const smallOverhead = newRuntimeClass('foo', { overhead: { podFixed: { cpu: '100m', memory: '1' } } });
const bigOverhead = newRuntimeClass('foo', { overhead: { podFixed: { cpu: '10', memory: '10G' } } });
const noOverhead = newRuntimeClass('foo');

/** A row that changes the pod: the error, or the pod after the change (undefined: unchanged). */
export interface PodChangeCase {
  name: string;
  runtimeClass: RuntimeClass;
  pod: Pod;
  error?: string;
  expectedPod?: Pod;
}

// Upstream's expectedPod for "overhead, guaranteed pod" drops the container resources, which
// setOverhead never touches; upstream never compares it. This row keeps the resources.
export const setOverheadCases: PodChangeCase[] = [
  {
    name: 'overhead, no container requirements',
    runtimeClass: smallOverhead,
    pod: newOverheadValidPod('no-resource-req-no-overhead', 1, {}, false, false),
    expectedPod: newOverheadValidPod('no-resource-req-no-overhead', 1, {}, true, false),
  },
  {
    name: 'overhead, guaranteed pod',
    runtimeClass: smallOverhead,
    pod: newOverheadValidPod('guaranteed', 1, guaranteedResources, false, false),
    expectedPod: newOverheadValidPod('guaranteed', 1, guaranteedResources, true, false),
  },
  {
    name: 'overhead, pod with differing overhead already set',
    runtimeClass: bigOverhead,
    pod: newOverheadValidPod('empty-requiremennts-overhead', 1, {}, true, false),
    error: mismatch('empty-requiremennts-overhead'),
  },
  {
    name: 'overhead, pod with same overhead already set',
    runtimeClass: smallOverhead,
    pod: newOverheadValidPod('empty-requiremennts-overhead', 1, {}, true, false),
    expectedPod: newOverheadValidPod('empty-requiremennts-overhead', 1, {}, true, false),
  },
];

const fooBarNoSchedule: Toleration = { key: 'foo', operator: 'Equal', value: 'bar', effect: 'NoSchedule' };
const fizzBuzzNoSchedule: Toleration = { key: 'fizz', operator: 'Equal', value: 'buzz', effect: 'NoSchedule' };

export const setSchedulingCases: PodChangeCase[] = [
  {
    name: 'scheduling, nil scheduling',
    runtimeClass: newRuntimeClass('foo'),
    pod: newSchedulingValidPod('pod-with-conflict-node-selector', { foo: 'bar' }, []),
    expectedPod: newSchedulingValidPod('pod-with-conflict-node-selector', { foo: 'bar' }, []),
  },
  {
    name: 'scheduling, conflict node selector',
    runtimeClass: newRuntimeClass('foo', { scheduling: { nodeSelector: { foo: 'conflict' } } }),
    pod: newSchedulingValidPod('pod-with-conflict-node-selector', { foo: 'bar' }, []),
    error:
      'pods "pod-with-conflict-node-selector" is forbidden: conflict: runtimeClass.scheduling.nodeSelector[foo] = conflict; pod.spec.nodeSelector[foo] = bar',
  },
  {
    name: 'scheduling, nil node selector',
    runtimeClass: newRuntimeClass('foo', { scheduling: { nodeSelector: { foo: 'bar' } } }),
    pod: newSchedulingValidPod('pod-with-conflict-node-selector', undefined, undefined),
    expectedPod: newSchedulingValidPod('pod-with-conflict-node-selector', { foo: 'bar' }, undefined),
  },
  {
    name: 'scheduling, node selector with the same key value',
    runtimeClass: newRuntimeClass('foo', { scheduling: { nodeSelector: { foo: 'bar' } } }),
    pod: newSchedulingValidPod('pod-with-same-key-value-node-selector', { foo: 'bar' }, undefined),
    expectedPod: newSchedulingValidPod('pod-with-same-key-value-node-selector', { foo: 'bar' }, undefined),
  },
  {
    name: 'scheduling, node selector with different key value',
    runtimeClass: newRuntimeClass('foo', { scheduling: { nodeSelector: { foo: 'bar', fizz: 'buzz' } } }),
    pod: newSchedulingValidPod('pod-with-different-key-value-node-selector', { foo: 'bar' }, undefined),
    expectedPod: newSchedulingValidPod('pod-with-different-key-value-node-selector', { foo: 'bar', fizz: 'buzz' }, undefined),
  },
  {
    name: 'scheduling, multiple tolerations',
    runtimeClass: newRuntimeClass('foo', { scheduling: { tolerations: [fooBarNoSchedule, fizzBuzzNoSchedule] } }),
    pod: newSchedulingValidPod('pod-with-tolerations', { foo: 'bar' }, [fooBarNoSchedule]),
    expectedPod: newSchedulingValidPod('pod-with-tolerations', { foo: 'bar' }, [fooBarNoSchedule, fizzBuzzNoSchedule]),
  },
];

/** TestValidateInitialization: the plugin needs a lister and a client (for us, the one Lookups port). */
export interface ValidateInitializationCase {
  name: string;
  lister: boolean;
  client: boolean;
  expectError: boolean;
}

export const validateInitializationCases: ValidateInitializationCase[] = [
  { name: 'runtimeClass enabled, success', lister: true, client: true, expectError: false },
  { name: 'runtimeClass enabled, no lister', lister: false, client: true, expectError: true },
  { name: 'runtimeClass enabled, no client', lister: true, client: false, expectError: true },
];

/** TestAdmit's pod, naming its RuntimeClass; upstream's attributes carry neither namespace nor name. */
export const admitRuntimeClassName = 'runtimeClassName';
export const admitPod = (): Pod => ({ metadata: { name: 'podname' }, spec: { runtimeClassName: admitRuntimeClassName } });
const admitRuntimeClass = newRuntimeClass(admitRuntimeClassName);

/** TestAdmit: where the RuntimeClass is (the informer's lister, the live client, or neither). */
export interface AdmitCase {
  name: string;
  lister: RuntimeClass[];
  client: RuntimeClass[];
  error: string | undefined;
  /** Live reads the plugin makes (only on a lister miss). */
  liveCalls: number;
}

export const admitCases: AdmitCase[] = [
  { name: 'runtimeClass found by lister', lister: [admitRuntimeClass], client: [], error: undefined, liveCalls: 0 },
  { name: 'runtimeClass found by client', lister: [], client: [admitRuntimeClass], error: undefined, liveCalls: 1 },
  {
    name: 'runtimeClass not found by lister nor client',
    lister: [],
    client: [],
    error: 'pods "podname" is forbidden: pod rejected: RuntimeClass "runtimeClassName" not found',
    liveCalls: 1,
  },
];

/** TestValidate: the plugin's Validate on a CREATE; its pods name no RuntimeClass, so the row's class is never looked up. */
export interface ValidateCase {
  name: string;
  runtimeClass: RuntimeClass;
  pod: Pod;
  error: string | undefined;
}

export const validateCases: ValidateCase[] = [
  {
    name: 'No Overhead in RunntimeClass, Overhead set in pod',
    runtimeClass: noOverhead,
    pod: newOverheadValidPod('no-resource-req-no-overhead', 1, guaranteedResources, true, false),
    error: unaccounted('no-resource-req-no-overhead'),
  },
  {
    name: 'Non-matching Overheads',
    runtimeClass: bigOverhead,
    pod: newOverheadValidPod('no-resource-req-no-overhead', 1, {}, true, false),
    error: unaccounted('no-resource-req-no-overhead'),
  },
  {
    name: 'Matching Overheads',
    runtimeClass: smallOverhead,
    pod: newOverheadValidPod('no-resource-req-no-overhead', 1, {}, false, false),
    error: undefined,
  },
];

/** TestValidateOverhead: validateOverhead alone, with the RuntimeClass already found (or none). */
export interface ValidateOverheadCase {
  name: string;
  runtimeClass: RuntimeClass | undefined;
  pod: Pod;
  error?: string;
}

export const validateOverheadCases: ValidateOverheadCase[] = [
  {
    name: 'Overhead part of RuntimeClass, no Overhead defined in pod',
    runtimeClass: smallOverhead,
    pod: newOverheadValidPod('no-requirements', 1, {}, false, false),
  },
  {
    name: 'No Overhead in RunntimeClass, Overhead set in pod',
    runtimeClass: noOverhead,
    pod: newOverheadValidPod('no-resource-req-no-overhead', 1, guaranteedResources, true, false),
    error: unaccounted('no-resource-req-no-overhead'),
  },
  {
    name: 'No RunntimeClass, Overhead set in pod',
    runtimeClass: undefined,
    pod: newOverheadValidPod('no-resource-req-no-overhead', 1, guaranteedResources, true, false),
    error: unaccounted('no-resource-req-no-overhead'),
  },
  {
    name: 'No RunntimeClass, empty Overhead set in pod',
    runtimeClass: undefined,
    pod: newOverheadValidPod('no-resource-req-no-overhead', 1, guaranteedResources, false, true),
  },
  {
    name: 'No RunntimeClass, Overhead is nil in pod',
    runtimeClass: undefined,
    pod: newOverheadValidPod('no-resource-req-no-overhead', 1, guaranteedResources, false, false),
  },
  {
    name: 'Non-matching Overheads',
    runtimeClass: bigOverhead,
    pod: newOverheadValidPod('no-resource-req-no-overhead', 1, {}, true, false),
    error: mismatch('no-resource-req-no-overhead'),
  },
  {
    name: 'RuntimeClass is set, empty Overhead is in pod',
    runtimeClass: bigOverhead,
    pod: newOverheadValidPod('no-resource-req-no-overhead', 1, {}, false, true),
  },
  {
    name: 'RuntimeClass is set, Overhead is nil in pod',
    runtimeClass: bigOverhead,
    pod: newOverheadValidPod('no-resource-req-no-overhead', 1, {}, false, false),
  },
  {
    name: 'Matching Overheads',
    runtimeClass: smallOverhead,
    pod: newOverheadValidPod('no-resource-req-no-overhead', 1, {}, true, false),
  },
];
