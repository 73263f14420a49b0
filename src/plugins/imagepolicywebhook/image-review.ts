// The ImageReview upstream's Validate builds for a pod (imagepolicy.k8s.io/v1alpha1): the images of
// the containers and then the init containers (for the pod itself) or of the ephemeral containers
// (for pods/ephemeralcontainers), the pod's annotations whose keys contain ".image-policy.k8s.io/",
// and the request's namespace. Image volumes are not reviewed: v1.37's plugin does not list them.
// The spec's JSON (encoding/json's: fields in declaration order, empty ones left out, map keys
// sorted) is both the body's spec and the cache key, as upstream keys its cache.
import type { Attributes } from '../../admission/attributes.ts';
import { badRequest } from '../../api/status-error.ts';
import type { KubeObject } from '../../api/types.ts';
import { isPlainObject } from '../../util/plain-object.ts';

export const apiVersion = 'imagepolicy.k8s.io/v1alpha1';
const ephemeralContainers = 'ephemeralcontainers';
/** Annotations a backend is shown: any key containing this. */
const annotationMarker = '.image-policy.k8s.io/';

export interface ImageReviewSpec {
  /** undefined when there is no container (Go's nil slice). */
  readonly containers: readonly { readonly image: string }[] | undefined;
  readonly annotations: Readonly<Record<string, string>>;
  readonly namespace: string;
}

export interface ImageReviewStatus {
  readonly allowed: boolean;
  readonly reason: string;
  readonly auditAnnotations: Readonly<Record<string, string>>;
}

interface ReviewedPod extends KubeObject {
  spec?: {
    containers?: { image?: string }[];
    initContainers?: { image?: string }[];
    ephemeralContainers?: { image?: string }[];
    [key: string]: unknown;
  };
}

/** Upstream's first check: only pods, and of their subresources only ephemeralcontainers. */
export function isReviewed(attributes: Attributes): boolean {
  const { subresource, resource } = attributes;
  return (subresource === '' || subresource === ephemeralContainers) && resource.group === '' && resource.resource === 'pods';
}

/** The request's pod, or upstream's BadRequest when its body could not have decoded into one. */
export function podOf(attributes: Attributes): ReviewedPod {
  const object = attributes.object;
  if (!decodesAsPod(object)) throw badRequest('Resource was marked with kind Pod but was unable to be converted');
  return object as ReviewedPod;
}

/** The spec for the pod: its images, its image-policy annotations and its namespace. */
export function reviewSpec(attributes: Attributes, pod: ReviewedPod): ImageReviewSpec {
  const spec = pod.spec ?? {};
  const lists = attributes.subresource === '' ? [spec.containers, spec.initContainers] : [spec.ephemeralContainers];
  const containers: { image: string }[] = [];
  for (const list of lists) for (const container of list ?? []) containers.push({ image: container.image ?? '' });
  const annotations: Record<string, string> = {};
  for (const [key, value] of Object.entries(pod.metadata?.annotations ?? {})) {
    if (key.includes(annotationMarker)) annotations[key] = value ?? '';
  }
  return { containers: containers.length === 0 ? undefined : containers, annotations, namespace: attributes.namespace };
}

/** json.Marshal(spec): the cache key and the body's spec. */
export function encodeSpec(spec: ImageReviewSpec): string {
  const parts: string[] = [];
  if (spec.containers !== undefined)
    parts.push(`"containers":[${spec.containers.map((c) => (c.image === '' ? '{}' : `{"image":${goString(c.image)}}`)).join(',')}]`);
  const keys = Object.keys(spec.annotations).sort(byBytes);
  if (keys.length > 0) parts.push(`"annotations":{${keys.map((k) => `${goString(k)}:${goString(spec.annotations[k]!)}`).join(',')}}`);
  if (spec.namespace !== '') parts.push(`"namespace":${goString(spec.namespace)}`);
  return `{${parts.join(',')}}`;
}

/** The request body: the versioned ImageReview the legacy codec writes, status at its zero value. */
export function encodeReview(encodedSpec: string): string {
  return `{"kind":"ImageReview","apiVersion":"${apiVersion}","metadata":{},"spec":${encodedSpec},"status":{"allowed":false}}`;
}

/** encoding/json's string: JSON's escapes plus Go's for <, >, & and the two line separators. */
function goString(value: string): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Go sorts map keys by their bytes; UTF-16 order differs only above the BMP, which is rare in keys. */
function byBytes(a: string, b: string): number {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return Buffer.compare(x, y);
}

function decodesAsPod(object: unknown): boolean {
  if (!isPlainObject(object)) return false;
  if (object.kind !== undefined && object.kind !== 'Pod') return false;
  const metadata = object.metadata;
  if (metadata !== undefined && metadata !== null) {
    if (!isPlainObject(metadata)) return false;
    const annotations = metadata.annotations;
    if (!isAbsentOr(annotations, (a) => isPlainObject(a) && Object.values(a).every((v) => isAbsentOr(v, isString)))) return false;
  }
  const spec = object.spec;
  if (spec === undefined || spec === null) return true;
  if (!isPlainObject(spec)) return false;
  return ['containers', 'initContainers', 'ephemeralContainers'].every((list) =>
    isAbsentOr(spec[list], (items) => Array.isArray(items) && items.every((c) => isPlainObject(c) && isAbsentOr(c.image, isString))),
  );
}

function isString(value: unknown): boolean {
  return typeof value === 'string';
}

function isAbsentOr(value: unknown, check: (value: unknown) => boolean): boolean {
  return value === undefined || value === null || check(value);
}
