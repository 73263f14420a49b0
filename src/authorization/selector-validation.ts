// Validation of a SubjectAccessReview's fieldSelector / labelSelector (upstream
// pkg/apis/authorization/validation + metav1 validation). Upstream validates SAR selectors with
// AllowUnknownOperatorInRequirement: true, so a newer client's operator is not a 422; the strict
// metav1 behaviour ("not a valid selector operator") is available through the option.

import { goQuote } from '../api/go-format.ts';
import { isLabelValue, isQualifiedName } from '../api/label-validation.ts';
import type { SelectorAttributes, SelectorRequirement } from '../ports/authorizer.ts';
import { type FieldError, forbidden, invalid, required } from './field-errors.ts';

export interface SelectorValidationOptions {
  /** Default true, as kube-apiserver's *SubjectAccessReview endpoints. */
  allowUnknownOperatorInRequirement?: boolean;
}

const hasValues = (r: SelectorRequirement) => (r.values?.length ?? 0) > 0;

/** The checks both selector kinds share: operator versus values. */
function validateOperator(requirement: SelectorRequirement, path: string, allowUnknown: boolean): FieldError[] {
  switch (requirement.operator) {
    case 'In':
    case 'NotIn':
      return hasValues(requirement) ? [] : [required(`${path}.values`, "must be specified when `operator` is 'In' or 'NotIn'")];
    case 'Exists':
    case 'DoesNotExist':
      return hasValues(requirement)
        ? [forbidden(`${path}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'")]
        : [];
    default:
      return allowUnknown ? [] : [invalid(`${path}.operator`, goQuote(requirement.operator ?? ''), 'not a valid selector operator')];
  }
}

/** metav1validation.ValidateFieldSelectorRequirement. */
export function validateFieldSelectorRequirement(
  requirement: SelectorRequirement,
  path: string,
  options: SelectorValidationOptions = {},
): FieldError[] {
  const errors: FieldError[] = [];
  if (!requirement.key) errors.push(required(`${path}.key`, 'must be specified'));
  errors.push(...validateOperator(requirement, path, options.allowUnknownOperatorInRequirement ?? true));
  return errors;
}

/** metav1validation.ValidateLabelSelectorRequirement: the key is a qualified name, values label values. */
export function validateLabelSelectorRequirement(
  requirement: SelectorRequirement,
  path: string,
  options: SelectorValidationOptions = {},
): FieldError[] {
  const errors = validateOperator(requirement, path, options.allowUnknownOperatorInRequirement ?? true);
  const key = requirement.key ?? '';
  for (const message of isQualifiedName(key)) errors.push(invalid(`${path}.key`, goQuote(key), message));
  (requirement.values ?? []).forEach((value, index) => {
    for (const message of isLabelValue(value)) errors.push(invalid(`${path}.values[${index}]`, goQuote(value), message));
  });
  return errors;
}

function validateSelectorAttributes(
  selector: SelectorAttributes | undefined,
  path: string,
  validateRequirement: (r: SelectorRequirement, path: string, options: SelectorValidationOptions) => FieldError[],
  options: SelectorValidationOptions,
): FieldError[] {
  if (selector === undefined || selector === null) return [];
  const errors: FieldError[] = [];
  const raw = selector.rawSelector ?? '';
  const requirements = selector.requirements ?? [];
  if (raw.length > 0 && requirements.length > 0) {
    errors.push(invalid(`${path}.rawSelector`, goQuote(raw), 'may not specified at the same time as requirements'));
  }
  if (raw.length === 0 && requirements.length === 0) {
    errors.push(required(`${path}.requirements`, `when ${path} is specified, requirements or rawSelector is required`));
  }
  requirements.forEach((requirement, index) => {
    errors.push(...validateRequirement(requirement, `${path}.requirements[${index}]`, options));
  });
  return errors;
}

export function validateFieldSelectorAttributes(
  selector: SelectorAttributes | undefined,
  path: string,
  options: SelectorValidationOptions = {},
): FieldError[] {
  return validateSelectorAttributes(selector, path, validateFieldSelectorRequirement, options);
}

export function validateLabelSelectorAttributes(
  selector: SelectorAttributes | undefined,
  path: string,
  options: SelectorValidationOptions = {},
): FieldError[] {
  return validateSelectorAttributes(selector, path, validateLabelSelectorRequirement, options);
}
