// The two patch formats every resource accepts (kube-apiserver's patch handler), each applied to a
// copy so the stored object is never changed in place: JSON merge patch and JSON patch.
import jsonPatch, { type Operation } from 'fast-json-patch';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** RFC 7386: maps merge, null deletes, anything else (lists included) replaces. */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return structuredClone(patch);
  const result: Record<string, unknown> = isObject(target) ? structuredClone(target) : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = applyMergePatch(result[key], value);
  }
  return result;
}

/** RFC 6902, operations in order; a failed test or a bad path throws. */
export function applyJsonPatch(target: unknown, operations: unknown): unknown {
  return jsonPatch.applyPatch(structuredClone(target), operations as Operation[], true, false).newDocument;
}
