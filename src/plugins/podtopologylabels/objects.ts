// The two bodies PodTopologyLabels reads: a Binding (pods/binding) and a Pod (pods). kube-apiserver
// hands upstream's plugin decoded objects; a JSON body that could not have decoded into the expected
// type is answered like upstream's failed type assertion, a plain error (500, no reason).
import type { Attributes } from '../../admission/attributes.ts';
import { nonStatusError, type StatusError } from '../../api/status-error.ts';
import type { KubeObject } from '../../api/types.ts';
import { isPlainObject } from '../../util/plain-object.ts';

export interface Binding extends KubeObject {
  target?: { kind?: string; name?: string; [key: string]: unknown };
}

export interface PodWithNode extends KubeObject {
  spec?: { nodeName?: string; [key: string]: unknown };
}

export function asBinding(attributes: Attributes): Binding {
  const object = attributes.object;
  const decodes =
    isPlainObject(object) &&
    (object.kind === undefined || object.kind === 'Binding') &&
    hasDecodableLabels(object) &&
    isAbsentOr(object.target, (target) => isPlainObject(target) && isAbsentOr(target.kind, isString) && isAbsentOr(target.name, isString));
  // Upstream names the request's kind here, not the body's type.
  if (!decodes) throw nonStatusError(`expected Binding but got ${(attributes.requestKind ?? attributes.kind).kind}`);
  return object as Binding;
}

export function asPod(attributes: Attributes): PodWithNode {
  const object = attributes.object;
  if (!isPlainObject(object)) throw notAPod(object === undefined || object === null ? '<nil>' : 'unknown');
  if (object.kind !== undefined && object.kind !== 'Pod')
    throw notAPod(typeof object.kind === 'string' ? `*core.${object.kind}` : 'unknown');
  const decodes =
    hasDecodableLabels(object) && isAbsentOr(object.spec, (spec) => isPlainObject(spec) && isAbsentOr(spec.nodeName, isString));
  if (!decodes) throw notAPod('*core.Pod that does not decode');
  return object as PodWithNode;
}

/** Upstream: fmt.Errorf("expected Pod but got %T", object). */
function notAPod(got: string): StatusError {
  return nonStatusError(`expected Pod but got ${got}`);
}

/** metadata absent or an object, its labels absent or a map of strings. */
function hasDecodableLabels(object: Record<string, unknown>): boolean {
  return isAbsentOr(
    object.metadata,
    (metadata) =>
      isPlainObject(metadata) &&
      isAbsentOr(metadata.labels, (labels) => isPlainObject(labels) && Object.values(labels).every((value) => isAbsentOr(value, isString))),
  );
}

function isString(value: unknown): boolean {
  return typeof value === 'string';
}

function isAbsentOr(value: unknown, check: (value: unknown) => boolean): boolean {
  return value === undefined || value === null || check(value);
}
