// The Pod as AlwaysPullImages sees it. kube-apiserver only hands a plugin an object that decoded
// into a core/v1 Pod, so a body that would not decode (wrong kind, wrong shapes) counts as "unable to
// be converted" here; and the visitors walk containers in upstream's order (pods.VisitContainersWithPath)
// because that order is the order of the error messages.

import type { Container, Pod, PodSpec, Volume } from '../../api/core.ts';
import { isPlainObject } from '../../util/plain-object.ts';

/** The container lists of a PodSpec, in the order upstream visits them. */
const containerLists = ['initContainers', 'containers', 'ephemeralContainers'] as const;

/** Returns the object as a Pod when kube-apiserver could have decoded it into one, else undefined. */
export function asPod(object: unknown): Pod | undefined {
  if (!isPlainObject(object)) return undefined;
  if (object.kind !== undefined && object.kind !== 'Pod') return undefined;
  const spec = object.spec;
  if (spec === undefined || spec === null) return object as Pod;
  if (!isPlainObject(spec)) return undefined;
  for (const list of containerLists) {
    if (!isListOf(spec[list], isDecodableContainer)) return undefined;
  }
  if (!isListOf(spec.volumes, isDecodableVolume)) return undefined;
  return object as Pod;
}

/**
 * Calls visitor with every init, regular and ephemeral container and its field path
 * ("spec.containers[0]"); stops as soon as visitor returns false. Returns whether it visited all.
 */
export function visitContainersWithPath(pod: Pod, visitor: (container: Container, path: string) => boolean): boolean {
  const spec: PodSpec = pod.spec ?? {};
  for (const list of containerLists) {
    const containers = spec[list] ?? [];
    for (const [index, container] of containers.entries()) {
      if (!visitor(container, `spec.${list}[${index}]`)) return false;
    }
  }
  return true;
}

/** Every image volume (KEP-4639) with its field path ("spec.volumes[0].image"). */
export function imageVolumesWithPath(pod: Pod): Array<{ image: NonNullable<Volume['image']>; path: string }> {
  const volumes = pod.spec?.volumes ?? [];
  const found: Array<{ image: NonNullable<Volume['image']>; path: string }> = [];
  for (const [index, volume] of volumes.entries()) {
    if (volume.image !== undefined && volume.image !== null) found.push({ image: volume.image, path: `spec.volumes[${index}].image` });
  }
  return found;
}

/** A string field as Go sees it after decoding: absent or null is the zero value "". */
export function stringField(value: string | null | undefined): string {
  return value ?? '';
}

function isDecodableContainer(value: unknown): boolean {
  return isPlainObject(value) && isOptionalString(value.image) && isOptionalString(value.imagePullPolicy);
}

function isDecodableVolume(value: unknown): boolean {
  if (!isPlainObject(value)) return false;
  const image = value.image;
  if (image === undefined || image === null) return true;
  return isPlainObject(image) && isOptionalString(image.reference) && isOptionalString(image.pullPolicy);
}

function isListOf(value: unknown, isItem: (item: unknown) => boolean): boolean {
  return value === undefined || value === null || (Array.isArray(value) && value.every(isItem));
}

function isOptionalString(value: unknown): boolean {
  return value === undefined || value === null || typeof value === 'string';
}
