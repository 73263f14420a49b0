// SubjectAccessReview semantics shared by both authorization backends.

export { attributesFromSpec, statusFromResult } from './conversion.ts';
export { decodeSubjectAccessReview, SubjectAccessReviewDecodeError } from './decode.ts';
export { type FieldError, fieldErrorString, fieldErrorsMessage, newInvalid } from './field-errors.ts';
export { reviewSubjectAccess } from './review.ts';
export { type SelectorValidationOptions, validateFieldSelectorAttributes, validateLabelSelectorAttributes } from './selector-validation.ts';
export * from './subject-access-review.ts';
export { subjectAccessReviewInvalid, validateSubjectAccessReview, validateSubjectAccessReviewSpec } from './validation.ts';
