// SubjectAccessReview semantics shared by both authorization backends.
export * from './subject-access-review.ts';
export { decodeSubjectAccessReview, SubjectAccessReviewDecodeError } from './decode.ts';
export { validateSubjectAccessReview, validateSubjectAccessReviewSpec, subjectAccessReviewInvalid } from './validation.ts';
export { validateFieldSelectorAttributes, validateLabelSelectorAttributes, type SelectorValidationOptions } from './selector-validation.ts';
export { attributesFromSpec, statusFromResult } from './conversion.ts';
export { reviewSubjectAccess } from './review.ts';
export { fieldErrorString, fieldErrorsMessage, newInvalid, type FieldError } from './field-errors.ts';
