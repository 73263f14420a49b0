// What the API server ends up with after a mutation: the JSON patch from the original object to
// the mutated one, as the webhook sends it, applied back to the original.
import jsonPatch from 'fast-json-patch';

export function patchedThroughWebhook(original: unknown, mutated: unknown): { patch: jsonPatch.Operation[]; result: unknown } {
  const patch = jsonPatch.compare(original as object, mutated as object);
  const result = jsonPatch.applyPatch(structuredClone(original), structuredClone(patch), true, false).newDocument;
  return { patch, result };
}
