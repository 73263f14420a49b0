// Upstream admission_test.go's builders (newOverheadValidPod, newSchedulingValidPod, its RuntimeClass
// objects), so the ported tables read like the originals.
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
