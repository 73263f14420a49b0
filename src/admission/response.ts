// The answers an admission handler gives, built in one place (controller-runtime's admission.Response
// helpers): allowed, denied with a rejection's Status, errored for a failure, patched with one
// JSONPatch, and warnings and audit annotations added to any of them. The HTTP layer's own refusals
// (404, 400, 413, 503) are metav1.Status bodies from failureStatus.
import type { Operation as PatchOperation } from 'fast-json-patch';
import { internalError, isStatusError, type StatusError } from '../api/status-error.ts';
import type { Status } from '../api/types.ts';
import type { AdmissionResponse } from './review.ts';

export function allowed(uid: string): AdmissionResponse {
  return { uid, allowed: true };
}

/** A rejection: the plugin's StatusError as kube-apiserver would have returned it. */
export function denied(uid: string, rejection: StatusError): AdmissionResponse {
  return { uid, allowed: false, status: { metadata: {}, ...rejection.status } };
}

/** Anything that went wrong while handling: a StatusError as it is, anything else an internal error. */
export function errored(uid: string, thrown: unknown): AdmissionResponse {
  return denied(uid, asStatusError(thrown));
}

/** What was thrown, as the Status to answer with: a StatusError as it is, anything else a 500. */
export function asStatusError(thrown: unknown): StatusError {
  return isStatusError(thrown) ? thrown : internalError(messageOf(thrown), thrown);
}

/** Allowed, with the changes as one base64 JSONPatch; no patch at all when nothing changed. */
export function patched(uid: string, patch: readonly PatchOperation[]): AdmissionResponse {
  if (patch.length === 0) return allowed(uid);
  return { uid, allowed: true, patch: Buffer.from(JSON.stringify(patch)).toString('base64'), patchType: 'JSONPatch' };
}

/** Adds the warnings (none: no field); the response holds the array given. */
export function withWarnings(response: AdmissionResponse, warnings: string[]): AdmissionResponse {
  if (warnings.length > 0) response.warnings = warnings;
  return response;
}

/** Adds the audit annotations (none: no field); the response holds the record given. */
export function withAuditAnnotations(response: AdmissionResponse, annotations: Record<string, string>): AdmissionResponse {
  for (const _ in annotations) {
    response.auditAnnotations = annotations;
    break;
  }
  return response;
}

/** A metav1.Status refusing the request itself (not an admission decision): 4xx or 5xx, one line. */
export function failureStatus(code: number, reason: string, message: string): Status {
  return { apiVersion: 'v1', kind: 'Status', metadata: {}, status: 'Failure', code, reason, message };
}

/** The message of whatever was thrown; a stack overflow says what it means for an object. */
function messageOf(thrown: unknown): string {
  if (thrown instanceof RangeError && /call stack/i.test(thrown.message)) return 'object is nested too deeply to process';
  return thrown instanceof Error ? thrown.message : String(thrown);
}
