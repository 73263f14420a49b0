// Reading the fields the plugin needs from an external (v1 JSON) pod. Upstream works on the
// internal Go type, where conversion has already folded the deprecated alias into
// ServiceAccountName and every struct field exists; here both are done on read.

import type { Container, Pod, PodSpec } from '../../api/core.ts';
import type { KubeObject } from '../../api/types.ts';
import { mirrorPodAnnotationKey } from './constants.ts';

/** The subset of a container's env wiring that can name a secret. */
export interface SecretReferencingContainer extends Container {
  env?: Array<{ name?: string; valueFrom?: { secretKeyRef?: { name?: string } | null } | null }>;
  envFrom?: Array<{ secretRef?: { name?: string } | null }>;
}

/**
 * upstream `obj.(*api.Pod)`: the request body is a Pod (a wire object without kind is taken as one).
 * kube-apiserver hands the plugin only what decoded into a Pod, so a body whose fields this plugin
 * reads have the wrong shape (a spec that is a boolean, containers that are a string) is not one:
 * upstream's type assertion fails and the plugin lets it be.
 */
export function asPod(object: KubeObject | undefined): Pod | undefined {
  if (!isObject(object)) return undefined;
  if (object.kind !== undefined && object.kind !== 'Pod') return undefined;
  if (!isDecodablePod(object)) return undefined;
  return object as Pod;
}

function isDecodablePod(pod: Record<string, unknown>): boolean {
  if (!optional(pod.metadata, isObject) || !optional((pod.metadata as Record<string, unknown> | undefined)?.annotations, isObject))
    return false;
  const spec = pod.spec;
  if (!optional(spec, isObject)) return false;
  if (!isObject(spec)) return true;
  return (
    optional(spec.serviceAccountName, isString) &&
    optional(spec.serviceAccount, isString) &&
    optional(spec.automountServiceAccountToken, isBoolean) &&
    listOf(spec.imagePullSecrets, isObject) &&
    listOf(spec.volumes, isDecodableVolume) &&
    (['initContainers', 'containers', 'ephemeralContainers'] as const).every((list) => listOf(spec[list], isDecodableContainer))
  );
}

function isDecodableContainer(container: unknown): boolean {
  if (!isObject(container)) return false;
  return (
    listOf(container.volumeMounts, isObject) &&
    listOf(
      container.env,
      (env) => isObject(env) && optional(env.valueFrom, (from) => isObject(from) && optional(from.secretKeyRef, isObject)),
    ) &&
    listOf(container.envFrom, (from) => isObject(from) && optional(from.secretRef, isObject))
  );
}

function isDecodableVolume(volume: unknown): boolean {
  if (!isObject(volume)) return false;
  // Every source this plugin reads a secret from is an object; projected lists its sources.
  for (const [key, source] of Object.entries(volume)) {
    if (key === 'name') continue;
    if (!optional(source, isObject)) return false;
  }
  return optional(
    volume.projected,
    (projected) => isObject(projected) && listOf(projected.sources, (item) => isObject(item) && optional(item.secret, isObject)),
  );
}

/** Absent, null (Go's nil) or of the shape. */
function optional(value: unknown, shape: (value: unknown) => boolean): boolean {
  return value === undefined || value === null || shape(value);
}

/** Absent, null, or a list whose every entry is null or of the shape. */
function listOf(value: unknown, shape: (item: Record<string, unknown>) => boolean): boolean {
  return optional(value, (list) => Array.isArray(list) && list.every((item) => item === null || (isObject(item) && shape(item))));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isString(value: unknown): boolean {
  return typeof value === 'string';
}

function isBoolean(value: unknown): boolean {
  return typeof value === 'boolean';
}

/** The spec upstream always has; created empty on a pod sent without one. */
export function specOf(pod: Pod): PodSpec {
  if (pod.spec === undefined || pod.spec === null) pod.spec = {};
  return pod.spec;
}

/**
 * v1 → internal conversion: `serviceAccountName` wins, the deprecated `serviceAccount` fills in
 * when it is empty.
 */
export function serviceAccountNameOf(pod: Pod): string {
  const spec = pod.spec;
  if (!spec) return '';
  if (typeof spec.serviceAccountName === 'string' && spec.serviceAccountName !== '') return spec.serviceAccountName;
  if (typeof spec.serviceAccount === 'string') return spec.serviceAccount;
  return '';
}

/** The key's presence marks a mirror pod, whatever its value. */
export function isMirrorPod(pod: Pod): boolean {
  const annotations = pod.metadata?.annotations;
  return annotations !== undefined && annotations !== null && Object.hasOwn(annotations, mirrorPodAnnotationKey);
}

export function containersOf(list: Container[] | undefined | null): SecretReferencingContainer[] {
  return (list ?? []).filter((c): c is SecretReferencingContainer => c !== null && typeof c === 'object');
}

/** A JSON null is Go's nil pointer. */
export function isSet<T>(value: T | null | undefined): value is T {
  return value !== undefined && value !== null;
}
