// The pod as PodTolerationRestriction reads it: tolerations, and what decides its QoS class.
// Upstream ignores an object that is not a core Pod; for a JSON body that means one that could not
// have decoded into one. A null toleration or container is what Go's encoding/json decodes to a
// zero value, so it is read as one: checked against the whitelist like any other toleration.

import type { Pod, PodSpec, Toleration } from '../../api/core.ts';
import { isPlainObject } from '../../util/plain-object.ts';

type ResourceList = Record<string, unknown>;

export interface ResourcedContainer {
  name?: string;
  resources?: { requests?: ResourceList | null; limits?: ResourceList | null } | null;
}

export interface PodForTolerations extends Omit<Pod, 'spec'> {
  spec?: Omit<PodSpec, 'containers' | 'initContainers' | 'tolerations'> & {
    containers?: Array<ResourcedContainer | null>;
    initContainers?: Array<ResourcedContainer | null>;
    /** Pod-level resources (KEP-2837). */
    resources?: ResourcedContainer['resources'];
    tolerations?: Array<Toleration | null>;
  };
  status?: { qosClass?: string | null; [key: string]: unknown } | null;
}

export function asPod(object: unknown): PodForTolerations | undefined {
  if (!isPlainObject(object) || (object.kind !== undefined && object.kind !== 'Pod')) return undefined;
  const status = object.status;
  if (!isAbsentOr(status, (s) => isPlainObject(s) && isAbsentOr(s.qosClass, isString))) return undefined;
  const spec = object.spec;
  if (spec === undefined || spec === null) return object as PodForTolerations;
  const decodes =
    isPlainObject(spec) &&
    isAbsentOr(spec.tolerations, (list) => isListOf(list, isDecodableToleration)) &&
    isAbsentOr(spec.containers, isContainerList) &&
    isAbsentOr(spec.initContainers, isContainerList) &&
    isAbsentOr(spec.resources, isResources);
  return decodes ? (object as PodForTolerations) : undefined;
}

/** The pod's tolerations, a null one as the zero toleration. */
export function tolerationsOf(pod: PodForTolerations): Toleration[] {
  const tolerations = pod.spec?.tolerations ?? [];
  return tolerations.every((toleration): toleration is Toleration => toleration !== null)
    ? tolerations
    : tolerations.map((toleration) => toleration ?? {});
}

function isDecodableToleration(value: unknown): boolean {
  if (!isPlainObject(value)) return false;
  return (
    isAbsentOr(value.key, isString) &&
    isAbsentOr(value.operator, isString) &&
    isAbsentOr(value.value, isString) &&
    isAbsentOr(value.effect, isString) &&
    isAbsentOr(value.tolerationSeconds, Number.isInteger)
  );
}

function isContainerList(value: unknown): boolean {
  return isListOf(value, (container) => isPlainObject(container) && isAbsentOr(container.resources, isResources));
}

/** A list whose entries are each null (a zero value) or pass `isItem`. */
function isListOf(value: unknown, isItem: (item: unknown) => boolean): boolean {
  return Array.isArray(value) && value.every((item) => item === null || isItem(item));
}

function isResources(value: unknown): boolean {
  return isPlainObject(value) && isAbsentOr(value.requests, isPlainObject) && isAbsentOr(value.limits, isPlainObject);
}

function isAbsentOr(value: unknown, check: (value: unknown) => boolean): boolean {
  return value === undefined || value === null || check(value);
}

function isString(value: unknown): boolean {
  return typeof value === 'string';
}
