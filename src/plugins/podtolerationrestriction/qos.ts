// Whether a pod is BestEffort (upstream qos.GetPodQOS): the class the pod's status already states,
// else computed — BestEffort when no container or init container (or, with pod-level resources,
// the pod itself) requests or limits a positive amount of CPU or memory. Pod-level resources count
// as in kube-apiserver with the PodLevelResources feature gate on, its default since it went beta.
import type { PodForTolerations, ResourcedContainer } from './pod.ts';

const qosComputeResources = ['cpu', 'memory'] as const;

export function isBestEffort(pod: PodForTolerations): boolean {
  const stated = pod.status?.qosClass;
  if (typeof stated === 'string' && stated !== '') return stated === 'BestEffort';
  const spec = pod.spec;
  if (spec?.resources !== undefined && spec.resources !== null) return !hasPositiveComputeResource(spec.resources);
  const containers = [...(spec?.containers ?? []), ...(spec?.initContainers ?? [])];
  return !containers.some((container) => hasPositiveComputeResource(container?.resources));
}

function hasPositiveComputeResource(resources: ResourcedContainer['resources']): boolean {
  for (const list of [resources?.requests, resources?.limits]) {
    for (const name of qosComputeResources) {
      if (isPositiveQuantity(list?.[name])) return true;
    }
  }
  return false;
}

const quantityPattern = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+|Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)?$/;

/** Quantity.Cmp(0) == 1: a positive sign and a non-zero digit (suffixes only scale); YAML numbers too. */
function isPositiveQuantity(value: unknown): boolean {
  const text = typeof value === 'number' ? String(value) : value;
  if (typeof text !== 'string') return false;
  const match = quantityPattern.exec(text);
  return match !== null && match[1] !== '-' && /[1-9]/.test(match[2]!);
}
