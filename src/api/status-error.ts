// Errors as values with a shape (apimachinery's api/errors): a StatusError carries the metav1.Status
// that kube-apiserver would return, in apimachinery's wording, so a denial reads exactly like an
// in-tree plugin's. Adapters, plugins and the admission layer all build them from here.
import { goQuote } from './go-format.ts';
import { type GroupResource, groupResourceString, type Status } from './types.ts';

/**
 * A rejection, carrying the metav1.Status to answer with. It is an Error to every reader
 * (`instanceof Error`, `message`, `name`, `cause`) but is built without Error's constructor: a
 * denial is an answer, not a bug, so it needs no stack trace, and Error's constructor costs even
 * with no frames captured (a pod denied for three containers builds four of these: a quarter of
 * AlwaysPullImages' validation time). Plugin bugs keep their stack in `cause`.
 */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the merge is the point (see the interface below); the constructor sets what Error's readers use
export class StatusError {
  readonly status: Status;
  message: string;
  declare readonly cause?: unknown;

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

/** apierrors.NewTooManyRequestsError(message): 429, with no Retry-After (clients do not retry it). */
export function tooManyRequests(message: string): StatusError {
  return new StatusError({ status: 'Failure', code: 429, reason: 'TooManyRequests', message: `Too many requests: ${message}` });
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
