// The pod as this plugin reads it. Upstream's type assertion to *api.Pod fails with a BadRequest;
// for a JSON body, "not a Pod" means a body whose shape could never have decoded into one.

import type { Pod } from '../../api/core.ts';
import { badRequest } from '../../api/status-error.ts';
import { isPlainObject } from '../../util/plain-object.ts';

const notAPod = 'Resource was marked with kind Pod but was unable to be converted';

export function asPod(object: unknown): Pod {
  if (!isPlainObject(object)) throw badRequest(notAPod);
  const pod = object as Pod;
  if (pod.kind !== undefined && pod.kind !== 'Pod') throw badRequest(notAPod);
  const spec: unknown = pod.spec;
  if (spec === undefined) return pod;
  if (!isPlainObject(spec)) throw badRequest(notAPod);
  const fieldsOk =
    isAbsentOr(spec.runtimeClassName, (v) => typeof v === 'string') &&
    isAbsentOr(spec.overhead, isPlainObject) &&
    isAbsentOr(spec.nodeSelector, isPlainObject) &&
    isAbsentOr(spec.tolerations, (v) => Array.isArray(v) && v.every(isPlainObject));
  if (!fieldsOk) throw badRequest(notAPod);
  return pod;
}

function isAbsentOr(value: unknown, check: (value: unknown) => boolean): boolean {
  return value === undefined || value === null || check(value);
}
