// The authorization question plugins ask (upstream authorizer.Authorizer), shaped like a
// SubjectAccessReview spec so both backends answer exactly the same thing.
import type { UserInfo } from '../api/types.ts';

export interface SelectorRequirement {
  key: string;
  operator: string;
  values?: string[];
}

export interface SelectorAttributes {
  rawSelector?: string;
  requirements?: SelectorRequirement[];
}

export interface ResourceAttributes {
  namespace?: string;
  verb: string;
  group?: string;
  version?: string;
  resource?: string;
  subresource?: string;
  name?: string;
  fieldSelector?: SelectorAttributes;
  labelSelector?: SelectorAttributes;
}

export interface NonResourceAttributes {
  path: string;
  verb: string;
}

/** Exactly one of resourceAttributes / nonResourceAttributes is set. */
export interface AuthorizationAttributes {
  user: UserInfo;
  resourceAttributes?: ResourceAttributes;
  nonResourceAttributes?: NonResourceAttributes;
}

export const Decision = {
  Allow: 'allow',
  Deny: 'deny',
  NoOpinion: 'no-opinion',
} as const;
export type Decision = (typeof Decision)[keyof typeof Decision];

export interface AuthorizationResult {
  decision: Decision;
  /** Why the decision was made ("" when the authorizer gave none). */
  reason: string;
  /**
   * Go's `err` from Authorize: an evaluation error (RBAC: a binding that names a missing role).
   * A result may carry both an allow and an error; messages print it as "<nil>" when absent.
   */
  error?: string;
  /**
   * Which of several composed authorizers gave this answer ("rbac-mirror", "subjectaccessreview"),
   * set only where a backend composes them; plugins may record it, never decide on it.
   */
  answeredBy?: string;
}

export interface Authorizer {
  /** The answer to one question; a failure to answer rejects (callers fail closed on it). */
  authorize(attributes: AuthorizationAttributes, signal?: AbortSignal): Promise<AuthorizationResult>;
}
