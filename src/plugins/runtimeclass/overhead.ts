// Pod overhead comes from the RuntimeClass and from nowhere else: the mutating half copies
// RuntimeClass.overhead.podFixed into the pod, the validating half rejects any pod whose overhead
// the RuntimeClass does not account for (upstream setOverhead / validateOverhead).

import type { Attributes } from '../../admission/attributes.ts';
import { forbidden } from '../../admission/errors.ts';
import type { Pod } from '../../api/core.ts';
import type { RuntimeClass } from '../../ports/lookups.ts';
import { resourceListLength, resourceListsEqual } from './quantity.ts';

const overheadMismatch = "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead";
const overheadWithoutRuntimeClass = 'pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead';

export function setOverhead(attributes: Attributes, pod: Pod, runtimeClass: RuntimeClass | undefined): void {
  const overhead = runtimeClass?.overhead;
  if (overhead === undefined || overhead === null) return;
  const podFixed = overhead.podFixed;
  if (resourceListLength(pod.spec?.overhead) > 0 && !resourceListsEqual(podFixed, pod.spec?.overhead)) {
    throw forbidden(attributes, overheadMismatch);
  }
  // An empty podFixed leaves the pod with no overhead, which it already has (empty or absent).
  if (resourceListLength(podFixed) === 0) return;
  pod.spec = { ...pod.spec, overhead: quantityStrings(podFixed!) };
}

export function validateOverhead(attributes: Attributes, pod: Pod, runtimeClass: RuntimeClass | undefined): void {
  if (resourceListLength(pod.spec?.overhead) === 0) return;
  const overhead = runtimeClass?.overhead;
  if (overhead === undefined || overhead === null) throw forbidden(attributes, overheadWithoutRuntimeClass);
  if (!resourceListsEqual(overhead.podFixed, pod.spec?.overhead)) throw forbidden(attributes, overheadMismatch);
}

/** Quantities go on the wire as strings; a YAML cluster-state file may hold bare numbers. */
function quantityStrings(list: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(Object.entries(list).map(([name, quantity]) => [name, String(quantity)]));
}
