// The pod as PodTolerationRestriction reads it: tolerations, and what decides its QoS class.
// Upstream ignores an object that is not a core Pod; for a JSON body that means one that could not
// have decoded into one.
import type { Pod, PodSpec, Toleration } from '../../api/core.ts';

type ResourceList = Record<string, unknown>;

export interface ResourcedContainer {
  resources?: { requests?: ResourceList | null; limits?: ResourceList | null } | null;
}

export interface PodForTolerations extends Pod {
  spec?: PodSpec & {
    containers?: ResourcedContainer[];
    initContainers?: ResourcedContainer[];
    /** Pod-level resources (KEP-2837). */
    resources?: ResourcedContainer['resources'];
    tolerations?: Toleration[];
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
    isAbsentOr(spec.tolerations, (list) => Array.isArray(list) && list.every(isDecodableToleration)) &&
    isAbsentOr(spec.containers, isContainerList) &&
    isAbsentOr(spec.initContainers, isContainerList) &&
    isAbsentOr(spec.resources, isResources);
  return decodes ? (object as PodForTolerations) : undefined;
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
  return Array.isArray(value) && value.every((container) => isPlainObject(container) && isAbsentOr(container.resources, isResources));
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

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
