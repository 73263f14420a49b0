// The pod as PodNodeSelector reads it: spec.nodeSelector. Upstream ignores an object that is not a
// core Pod; for a JSON body that means one that could not have decoded into one.

import type { Pod } from '../../api/core.ts';
import { isPlainObject } from '../../util/plain-object.ts';

export function asPod(object: unknown): Pod | undefined {
  if (!isPlainObject(object) || (object.kind !== undefined && object.kind !== 'Pod')) return undefined;
  const spec = object.spec;
  if (spec === undefined || spec === null) return object as Pod;
  if (!isPlainObject(spec)) return undefined;
  const selector = spec.nodeSelector;
  if (selector === undefined || selector === null) return object as Pod;
  if (!isPlainObject(selector) || !Object.values(selector).every((v) => typeof v === 'string' || v === null)) return undefined;
  return object as Pod;
}

/** The pod's node selector as a label set (a null value decodes as ""). */
export function nodeSelectorOf(pod: Pod): Map<string, string> {
  return new Map(Object.entries(pod.spec?.nodeSelector ?? {}).map(([key, value]) => [key, value ?? '']));
}
