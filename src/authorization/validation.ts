// What kube-apiserver's SubjectAccessReview endpoint checks before it asks any authorizer
// (pkg/apis/authorization/validation, current upstream): exactly one of resourceAttributes /
// nonResourceAttributes, a user or a group, well-formed selectors, a status that is not both
// allowed and denied, and empty metadata. Same order, same wording. (Releases before the "union"
// rework reported the first check on spec.resourceAttributes / spec.nonResourceAttributes.)
import { goQuote } from '../api/go-format.ts';
import type { StatusError } from '../api/status-error.ts';
import { type FieldError, invalid, newInvalid } from './field-errors.ts';
import { goNonResourceAttributes, goObjectMeta } from './go-value.ts';
import { type SelectorValidationOptions, validateFieldSelectorAttributes, validateLabelSelectorAttributes } from './selector-validation.ts';
import type { SubjectAccessReview, SubjectAccessReviewSpec } from './subject-access-review.ts';

const present = <T>(value: T | undefined | null): value is T => value !== undefined && value !== null;

/** ValidateSubjectAccessReviewSpec(spec, "spec"). */
export function validateSubjectAccessReviewSpec(spec: SubjectAccessReviewSpec, options: SelectorValidationOptions = {}): FieldError[] {
  const errors: FieldError[] = [];
  const resource = spec.resourceAttributes;
  const nonResource = spec.nonResourceAttributes;
  if (present(resource) === present(nonResource)) {
    // Upstream reports the union on "spec" with nonResourceAttributes as the bad value (nil: null).
    const badValue = present(nonResource) ? goNonResourceAttributes(nonResource) : 'null';
    errors.push(invalid('spec', badValue, 'exactly one of nonResourceAttributes or resourceAttributes must be specified'));
  }
  if (!spec.user && (spec.groups?.length ?? 0) === 0) {
    errors.push(invalid('spec.user', goQuote(spec.user ?? ''), 'at least one of user or group must be specified'));
  }
  if (present(resource)) {
    errors.push(...validateFieldSelectorAttributes(resource.fieldSelector, 'spec.resourceAttributes.fieldSelector', options));
    errors.push(...validateLabelSelectorAttributes(resource.labelSelector, 'spec.resourceAttributes.labelSelector', options));
  }
  return errors;
}

const objectMetaFields = [
  'name',
  'generateName',
  'namespace',
  'selfLink',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
] as const;

/** Semantic emptiness of ObjectMeta: zero values, and empty maps/slices equal nil ones. managedFields are ignored. */
function isEmptyObjectMeta(metadata: Record<string, unknown>): boolean {
  return objectMetaFields.every((key) => {
    const value = metadata[key];
    if (value === undefined || value === null || value === '' || value === 0) return true;
    if (Array.isArray(value)) return value.length === 0;
    if (typeof value === 'object') return Object.keys(value).length === 0;
    return false;
  });
}

/** ValidateSubjectAccessReview: the spec, the status, then metadata must be empty. */
export function validateSubjectAccessReview(review: SubjectAccessReview, options: SelectorValidationOptions = {}): FieldError[] {
  const errors = validateSubjectAccessReviewSpec(review.spec, options);
  if (review.status?.allowed === true && review.status.denied === true) {
    errors.push(invalid('status', 'true', 'allowed and denied are mutually exclusive'));
  }
  const metadata = review.metadata ?? {};
  if (!isEmptyObjectMeta(metadata)) errors.push(invalid('metadata', goObjectMeta(metadata), 'must be empty'));
  return errors;
}

/**
 * The 422 the endpoint answers: NewInvalid(authorization.Kind(sar.Kind), "", errs). The decoded
 * internal object has an empty Kind, so the message starts `.authorization.k8s.io "" is invalid`.
 */
export function subjectAccessReviewInvalid(errors: readonly FieldError[]): StatusError {
  return newInvalid('authorization.k8s.io', '', '', errors);
}
