// What POST /apis/authorization.k8s.io/v1/subjectaccessreviews does, against any Authorizer:
// validate (422 on failure), build the attributes from the spec, ask, and fill in the status.
import type { Authorizer } from '../ports/authorizer.ts';
import { attributesFromSpec, statusFromResult } from './conversion.ts';
import type { SubjectAccessReview } from './subject-access-review.ts';
import { subjectAccessReviewInvalid, validateSubjectAccessReview } from './validation.ts';

/** Resolves to the review with `status` set; rejects with a 422 StatusError when invalid. */
export async function reviewSubjectAccess(
  review: SubjectAccessReview,
  authorizer: Authorizer,
  signal?: AbortSignal,
): Promise<SubjectAccessReview> {
  const errors = validateSubjectAccessReview(review);
  if (errors.length > 0) throw subjectAccessReviewInvalid(errors);
  const result = await authorizer.authorize(attributesFromSpec(review.spec), signal);
  return { ...review, status: statusFromResult(result, review.spec) };
}
