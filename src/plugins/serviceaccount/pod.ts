// Reading the fields the plugin needs from an external (v1 JSON) pod. Upstream works on the
// internal Go type, where conversion has already folded the deprecated alias into
// ServiceAccountName and every struct field exists; here both are done on read.
import type { KubeObject } from '../../api/types.ts';
import type { Container, Pod, PodSpec } from '../../api/core.ts';
import { mirrorPodAnnotationKey } from './constants.ts';

/** The subset of a container's env wiring that can name a secret. */
export interface SecretReferencingContainer extends Container {
  env?: Array<{ name?: string; valueFrom?: { secretKeyRef?: { name?: string } | null } | null }>;
  envFrom?: Array<{ secretRef?: { name?: string } | null }>;
}

/** upstream `obj.(*api.Pod)`: the request body is a Pod (a wire object without kind is taken as one). */
export function asPod(object: KubeObject | undefined): Pod | undefined {
  if (object === undefined || object === null || typeof object !== 'object' || Array.isArray(object)) return undefined;
  if (object.kind !== undefined && object.kind !== 'Pod') return undefined;
  return object as Pod;
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
