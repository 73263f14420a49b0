// The pod as ExtendedResourceToleration reads it: container resource requests and tolerations.
// kube-apiserver only hands the plugin a decoded core Pod; a body that could not have decoded is
// answered like upstream's failed type assertion. A null container or toleration is what Go's
// encoding/json decodes to a zero value, so it is read as one: no requests, no fields.

import type { Pod, PodSpec, Toleration } from '../../api/core.ts';
import { badRequest } from '../../api/status-error.ts';
import { isPlainObject } from '../../util/plain-object.ts';

interface RequestingContainer {
  resources?: { requests?: Record<string, unknown> | null } | null;
}

export interface PodForExtendedResources extends Omit<Pod, 'spec'> {
  spec?: Omit<PodSpec, 'containers' | 'initContainers' | 'tolerations'> & {
    containers?: Array<RequestingContainer | null>;
    initContainers?: Array<RequestingContainer | null>;
    tolerations?: Array<Toleration | null>;
  };
}

export function asPod(object: unknown): PodForExtendedResources {
  if (!isPlainObject(object)) throw notAPod(object === undefined || object === null ? '<nil>' : 'unknown');
  if (object.kind !== undefined && object.kind !== 'Pod')
    throw notAPod(typeof object.kind === 'string' ? `*core.${object.kind}` : 'unknown');
  const spec = object.spec;
  if (spec === undefined || spec === null) return object as PodForExtendedResources;
  const decodes =
    isPlainObject(spec) &&
    isListOf(spec.containers, isDecodableContainer) &&
    isListOf(spec.initContainers, isDecodableContainer) &&
    isListOf(spec.tolerations, isPlainObject);
  if (!decodes) throw notAPod('*core.Pod that does not decode');
  return object as PodForExtendedResources;
}

/** Upstream: errors.NewBadRequest(fmt.Sprintf("expected *core.Pod but got %T", object)). */
function notAPod(got: string) {
  return badRequest(`expected *core.Pod but got ${got}`);
}

function isDecodableContainer(value: unknown): boolean {
  if (!isPlainObject(value)) return false;
  const resources = value.resources;
  if (resources === undefined || resources === null) return true;
  return isPlainObject(resources) && (resources.requests === undefined || resources.requests === null || isPlainObject(resources.requests));
}

/** Absent, or a list whose entries are each null (a zero value) or pass `isItem`. */
function isListOf(value: unknown, isItem: (item: unknown) => boolean): boolean {
  return value === undefined || value === null || (Array.isArray(value) && value.every((item) => item === null || isItem(item)));
}
