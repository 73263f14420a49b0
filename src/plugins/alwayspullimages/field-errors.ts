// apimachinery's wording for the two error shapes this plugin returns, so a rejection reads exactly
// like kube-apiserver's: field.NotSupported(...).Error() and utilerrors.NewAggregate(...).
import { goQuote } from '../../api/go-format.ts';
import { StatusError } from '../../api/status-error.ts';

/**
 * field.NotSupported(path, value, supported).Error() for a string-kinded value:
 * `spec.containers[0].imagePullPolicy: Unsupported value: "Never": supported values: "Always"`.
 */
export function notSupported(path: string, value: string, supported: readonly string[]): string {
  let message = `${path}: Unsupported value: ${goQuote(value)}`;
  if (supported.length > 0) message += `: supported values: ${supported.map(goQuote).join(', ')}`;
  return message;
}

/**
 * What kube-apiserver answers when an admission plugin returns utilerrors.NewAggregate(errors).
 * The message is the aggregate's: one distinct message alone, several as "[a, b]" (duplicates
 * dropped). An aggregate is not an APIStatus, so the API server's ErrorToAPIStatus turns it into a
 * Failure with code 500 and the empty ("Unknown") reason, even when every element is a 403.
 */
export function aggregate(errors: readonly StatusError[]): StatusError {
  if (errors.length === 0) throw new Error('aggregate needs at least one error');
  if (errors.length === 1) return asUnknownStatus(errors[0]!.message, errors);
  // A Set keeps first-seen order and stays linear: a pod may carry tens of thousands of containers.
  const distinct = new Set<string>();
  for (const { message } of errors) distinct.add(message);
  const message = distinct.size === 1 ? errors[0]!.message : `[${[...distinct].join(', ')}]`;
  return asUnknownStatus(message, errors);
}

function asUnknownStatus(message: string, errors: readonly StatusError[]): StatusError {
  return new StatusError({ status: 'Failure', code: 500, message }, { cause: errors });
}
