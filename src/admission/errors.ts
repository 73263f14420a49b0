// Admission's own errors: admission.NewForbidden with the request's name, and why a request was
// given up. The error type itself is apimachinery's (src/api/status-error.ts).
import { internalError, newForbidden, type StatusError } from '../api/status-error.ts';
import type { Attributes } from './attributes.ts';

/**
 * admission.NewForbidden(attributes, err): the request's name, else the object's name, else its
 * generateName (names are not generated yet at admission), else "Unknown".
 */
export function forbidden(attributes: Attributes, reason: string): StatusError {
  return newForbidden(attributes.resource, extractResourceName(attributes), reason);
}

export function extractResourceName(attributes: Attributes): string {
  if (attributes.name !== '') return attributes.name;
  const obj = attributes.object;
  if (obj === undefined || obj === null) return 'Unknown';
  if (typeof obj !== 'object' || Array.isArray(obj)) return 'Unknown/errorGettingName';
  const meta = obj.metadata;
  if (meta?.name) return meta.name;
  if (meta?.generateName) return meta.generateName;
  return 'Unknown';
}

/**
 * Why a request was given up: its deadline (an AbortSignal reason named TimeoutError), or the
 * caller going away, in which case nobody reads the answer but the log and metrics should not
 * call it a timeout. `detail` says where it was given up.
 */
export function abortedError(reason: unknown, detail = ''): StatusError {
  if (reason instanceof Error && reason.name === 'TimeoutError') return internalError(`admission request deadline exceeded${detail}`);
  return internalError(`admission request canceled${detail}: ${reason instanceof Error ? reason.message : String(reason)}`);
}
