// apimachinery's field.Error / field.ErrorList and apierrors.NewInvalid: validation failures as
// values, rendered in the API's exact wording ("spec.user: Invalid value: \"\": ...").

import { aggregateMessage } from '../api/aggregate.ts';
import { goQuote } from '../api/go-format.ts';
import { StatusError } from '../api/status-error.ts';

export const FieldErrorType = {
  Invalid: 'FieldValueInvalid',
  Required: 'FieldValueRequired',
  Forbidden: 'FieldValueForbidden',
} as const;
export type FieldErrorType = (typeof FieldErrorType)[keyof typeof FieldErrorType];

export interface FieldError {
  type: FieldErrorType;
  field: string;
  /** Invalid only: the bad value as field.Error prints it ("null" for nil; see go-value.ts). */
  badValue?: string;
  detail: string;
}

export function invalid(field: string, badValue: string, detail: string): FieldError {
  return { type: FieldErrorType.Invalid, field, badValue, detail };
}

export function required(field: string, detail: string): FieldError {
  return { type: FieldErrorType.Required, field, detail };
}

export function forbidden(field: string, detail: string): FieldError {
  return { type: FieldErrorType.Forbidden, field, detail };
}

const typeText: Record<FieldErrorType, string> = {
  FieldValueInvalid: 'Invalid value',
  FieldValueRequired: 'Required value',
  FieldValueForbidden: 'Forbidden',
};

/** field.Error.ErrorBody(): the message without the field path. */
export function fieldErrorBody(error: FieldError): string {
  let body = typeText[error.type];
  if (error.type === FieldErrorType.Invalid) body += `: ${error.badValue ?? 'null'}`;
  if (error.detail !== '') body += `: ${error.detail}`;
  return body;
}

/** field.Error.Error(): "<field>: <body>". */
export function fieldErrorString(error: FieldError): string {
  return `${error.field}: ${fieldErrorBody(error)}`;
}

/** ErrorList.ToAggregate().Error(). */
export function fieldErrorsMessage(errors: readonly FieldError[]): string {
  return aggregateMessage(errors.map(fieldErrorString));
}

/** apierrors.NewInvalid(GroupKind{group, kind}, name, errs): HTTP 422, reason Invalid. */
export function newInvalid(group: string, kind: string, name: string, errors: readonly FieldError[]): StatusError {
  const qualifiedKind = group === '' ? kind : `${kind}.${group}`;
  const summary = errors.length === 0 ? '' : `: ${fieldErrorsMessage(errors)}`;
  return new StatusError({
    status: 'Failure',
    code: 422,
    reason: 'Invalid',
    message: `${qualifiedKind} ${goQuote(name)} is invalid${summary}`,
    details: {
      name,
      group,
      kind,
      causes: errors.map((error) => ({ type: error.type, message: fieldErrorBody(error), field: error.field })),
    },
  });
}
