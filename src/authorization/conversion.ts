// Between the SubjectAccessReview wire object and our Authorizer port, on the answering side (the
// `authorize` CLI and the stand-in API server): the spec becomes the attributes
// (AuthorizationAttributesFrom) and a result becomes the status the endpoint writes. The asking
// side (spec out, status back) lives with the cluster authorizer, which also needs the spec's
// exact wire form for its cache key.
import type { AuthorizationAttributes, AuthorizationResult, NonResourceAttributes } from '../ports/authorizer.ts';
import { Decision } from '../ports/authorizer.ts';
import { selectorEvaluationNotes } from './selector-requirements.ts';
import type { SubjectAccessReviewSpec, SubjectAccessReviewStatus } from './subject-access-review.ts';

function copyDefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined && v !== null)) as T;
}

/** AuthorizationAttributesFrom: resourceAttributes win when (invalidly) both are present. */
export function attributesFromSpec(spec: SubjectAccessReviewSpec): AuthorizationAttributes {
  const user = copyDefined({ username: spec.user ?? '', groups: spec.groups ?? [], uid: spec.uid, extra: spec.extra });
  if (spec.resourceAttributes) return { user, resourceAttributes: copyDefined({ ...spec.resourceAttributes }) };
  return { user, nonResourceAttributes: copyDefined({ ...(spec.nonResourceAttributes as NonResourceAttributes) }) };
}

/**
 * The status the endpoint writes: allowed/denied from the decision (never both), the reason, and
 * evaluationError = the authorizer's error plus notes on selector requirements it had to drop
 * (BuildEvaluationError). Empty fields are omitted, as Go's omitempty does.
 */
export function statusFromResult(result: AuthorizationResult, spec?: SubjectAccessReviewSpec): SubjectAccessReviewStatus {
  const status: SubjectAccessReviewStatus = { allowed: result.decision === Decision.Allow };
  if (result.decision === Decision.Deny) status.denied = true;
  if (result.reason !== '') status.reason = result.reason;
  const resource = spec?.resourceAttributes;
  const evaluationErrors = [
    ...(result.error !== undefined && result.error !== '' ? [result.error] : []),
    ...(resource ? selectorEvaluationNotes(resource.fieldSelector, resource.labelSelector) : []),
  ];
  if (evaluationErrors.length > 0) status.evaluationError = evaluationErrors.join('; ');
  return status;
}
