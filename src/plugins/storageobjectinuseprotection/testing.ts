// Test support: Attributes from an AdmissionReview request, and the webhook's view of a mutation
// (the JSON patch from the original object to the mutated one, applied back to the original).
import jsonPatch from 'fast-json-patch';
import { attributesFrom, type AdmissionRequest } from '../../admission/review.ts';
import { cloneJson } from '../../util/clone-json.ts';
import type { Attributes, RequestContext } from '../../admission/attributes.ts';
import { isOperation } from '../../admission/operation.ts';
import type { GroupVersionKind, GroupVersionResource, KubeObject, UserInfo } from '../../api/types.ts';

export interface AdmissionRequestJSON {
  uid: string;
  kind: GroupVersionKind;
  resource: GroupVersionResource;
  subResource?: string;
  name?: string;
  namespace?: string;
  operation: string;
  userInfo?: UserInfo;
  object?: KubeObject;
  oldObject?: KubeObject;
  dryRun?: boolean;
  options?: unknown;
}

/** Attributes as the webhook builds them from an AdmissionReview request (the webhook's own codec). */
export function attributesFromRequest(request: AdmissionRequestJSON): Attributes {
  if (!isOperation(request.operation)) throw new Error(`bad operation ${request.operation}`);
  return attributesFrom(request as unknown as AdmissionRequest, request.object === undefined ? undefined : cloneJson(request.object));
}

export function testContext(): RequestContext {
  return { signal: new AbortController().signal, annotate: () => {}, warn: () => {} };
}

/** What the API server ends up with: the original plus the patch the webhook would send. */
export function patchedThroughWebhook(original: unknown, mutated: unknown): { patch: jsonPatch.Operation[]; result: unknown } {
  const patch = jsonPatch.compare(original as object, mutated as object);
  const result = jsonPatch.applyPatch(structuredClone(original), structuredClone(patch), true, false).newDocument;
  return { patch, result };
}
