// Errors as values with a shape: a StatusError carries the metav1.Status that kube-apiserver would
// return, in apimachinery's wording, so a denial reads exactly like an in-tree plugin's.
import { groupResourceString, type GroupResource, type Status } from '../api/types.ts';
import type { Attributes } from './attributes.ts';
import type { Explanation } from './explanation.ts';

/**
 * A rejection, carrying the metav1.Status to answer with. It is an Error to every reader
 * (`instanceof Error`, `message`, `name`, `cause`) but is built without Error's constructor: a
 * denial is an answer, not a bug, so it needs no stack trace, and Error's constructor costs even
 * with no frames captured (a pod denied for three containers builds four of these: a quarter of
 * AlwaysPullImages' validation time). Plugin bugs keep their stack in `cause`.
 */
export class StatusError {
  readonly status: Status;
  message: string;
  declare readonly cause?: unknown;
  /** Why, as data (explanation.ts): kept beside the status, never in its message. */
  declare explanation?: Explanation;

  constructor(status: Status, options?: { cause?: unknown }) {
    this.status = status;
    this.message = status.message;
    if (options !== undefined && 'cause' in options) this.cause = options.cause;
  }

  get code(): number {
    return this.status.code;
  }
}
// The class and this interface merge: the type system sees what the prototype chain gives.
export interface StatusError extends Error {}
Object.setPrototypeOf(StatusError.prototype, Error.prototype);
Object.defineProperty(StatusError.prototype, 'name', { value: 'StatusError', writable: true, configurable: true });

export function isStatusError(value: unknown): value is StatusError {
  return value instanceof StatusError;
}

export function isForbidden(value: unknown): value is StatusError {
  return isStatusError(value) && value.status.reason === 'Forbidden';
}

/** Printable ASCII with neither a quote nor a backslash: quoted as it is, by JSON and Go alike. */
const plainAscii = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/** Go's %q for the strings we quote (object names): a double-quoted string with escapes. */
export function goQuote(value: string): string {
  // Nearly every name and value quoted is plain ASCII: quoted without the JSON encoder's setup.
  return plainAscii.test(value) ? `"${value}"` : JSON.stringify(value);
}

/** apierrors.NewForbidden(qualifiedResource, name, err). */
export function newForbidden(resource: GroupResource, name: string, reason: string): StatusError {
  let message: string;
  if (resource.group === '' && resource.resource === '') {
    message = `forbidden: ${reason}`;
  } else if (name === '') {
    message = `${groupResourceString(resource)} is forbidden: ${reason}`;
  } else {
    message = `${groupResourceString(resource)} ${goQuote(name)} is forbidden: ${reason}`;
  }
  return new StatusError({
    status: 'Failure',
    code: 403,
    reason: 'Forbidden',
    message,
    details: { name, group: resource.group, kind: resource.resource },
  });
}

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

/** apierrors.NewNotFound(qualifiedResource, name): `namespaces "x" not found`. */
export function newNotFound(resource: GroupResource, name: string): StatusError {
  return new StatusError({
    status: 'Failure',
    code: 404,
    reason: 'NotFound',
    message: `${groupResourceString(resource)} ${goQuote(name)} not found`,
    details: { name, group: resource.group, kind: resource.resource },
  });
}

/**
 * What kube-apiserver answers when an admission plugin returns a plain Go error rather than an API
 * status (responsewriters.ErrorToAPIStatus): code 500, the empty ("Unknown") reason, the error's text.
 */
export function nonStatusError(message: string, cause?: unknown): StatusError {
  return new StatusError({ status: 'Failure', code: 500, message }, { cause });
}

/** apierrors.NewBadRequest(reason). */
export function badRequest(message: string): StatusError {
  return new StatusError({ status: 'Failure', code: 400, reason: 'BadRequest', message });
}

/** apierrors.NewInternalError(err). */
export function internalError(message: string, cause?: unknown): StatusError {
  return new StatusError(
    {
      status: 'Failure',
      code: 500,
      reason: 'InternalError',
      message: `Internal error occurred: ${message}`,
      details: { causes: [{ message }] },
    },
    { cause },
  );
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

/** Go's "%v" of an error value: "<nil>" when there is none. */
export function goErrorString(error: string | undefined): string {
  return error === undefined ? '<nil>' : error;
}
