// Between the SubjectAccessReview wire object and our Authorizer port: the spec becomes the
// attributes (AuthorizationAttributesFrom) and a result becomes the status the endpoint writes.
// Both backends use it: the embedded RBAC path to answer, the cluster path to ask.
import type { AuthorizationAttributes, AuthorizationResult, NonResourceAttributes, ResourceAttributes } from '../ports/authorizer.ts';
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

/** The spec a client posts to ask the cluster the same question. */
export function specFromAttributes(attributes: AuthorizationAttributes): SubjectAccessReviewSpec {
  const { username, groups, uid, extra } = attributes.user;
  const spec: SubjectAccessReviewSpec = copyDefined({ user: username, groups, uid, extra });
  if (attributes.resourceAttributes) spec.resourceAttributes = copyDefined({ ...attributes.resourceAttributes }) as ResourceAttributes;
  else if (attributes.nonResourceAttributes) spec.nonResourceAttributes = { ...attributes.nonResourceAttributes };
  return spec;
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

/**
 * Reading a status back (the cluster backend): as the webhook authorizer does, a status that is
 * both allowed and denied is no opinion with an error; evaluationError becomes the error.
 */
export function resultFromStatus(status: Partial<SubjectAccessReviewStatus>): AuthorizationResult {
  const reason = status.reason ?? '';
  const error = status.evaluationError ? status.evaluationError : undefined;
  if (status.allowed && status.denied) {
    return { decision: Decision.NoOpinion, reason: '', error: 'webhook subject access review returned both allow and deny response' };
  }
  const decision = status.denied ? Decision.Deny : status.allowed ? Decision.Allow : Decision.NoOpinion;
  return error === undefined ? { decision, reason } : { decision, reason, error };
}
