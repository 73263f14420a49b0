// How upstream's errors reach the client. admission.NewForbidden wraps a reason as
// `pods "<name>" is forbidden: <reason>` unless errors.As finds a Forbidden inside, in which case
// it returns the error unchanged; kube-apiserver then answers any error that is not an API status
// with code 500 and an empty (Unknown) reason. Two upstream paths land there, so we do too.
import type { Attributes } from '../../admission/attributes.ts';
import { forbidden } from '../../admission/errors.ts';
import { explained, FactType } from '../../admission/explanation.ts';
import { StatusError } from '../../api/status-error.ts';
import { ServiceAccountLookupError } from './lookup.ts';

/** A plain Go error as kube-apiserver's ErrorToAPIStatus renders it. */
export function unknownError(message: string, cause?: unknown): StatusError {
  return new StatusError({ status: 'Failure', code: 500, message }, { cause });
}

/**
 * `error looking up service account ns/name: <err>`. Admit and the ephemeral-container check wrap
 * with %w (a Forbidden from the live GET shows through and becomes a 500); the create-time
 * Validate wraps with %v (always a 403).
 */
export function lookupRejection(attributes: Attributes, serviceAccountName: string, error: unknown, wrap: '%w' | '%v'): StatusError {
  if (!(error instanceof ServiceAccountLookupError)) throw error;
  const message = `error looking up service account ${attributes.namespace}/${serviceAccountName}: ${error.message}`;
  if (wrap === '%w' && error.forbidden) return unknownError(message, error);
  const rejection = forbidden(attributes, message);
  if (!error.notFound) return rejection;
  return explained(rejection, {
    facts: [{ type: FactType.MissingServiceAccount, namespace: attributes.namespace, name: serviceAccountName }],
  });
}
