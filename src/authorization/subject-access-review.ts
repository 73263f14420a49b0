// authorization.k8s.io/v1 SubjectAccessReview, as JSON: what the `authorize` command reads and
// what the cluster backend posts. The spec's attributes are our port's shapes, which mirror it.
import type { NonResourceAttributes, ResourceAttributes } from '../ports/authorizer.ts';

export const subjectAccessReviewApiVersion = 'authorization.k8s.io/v1';
export const subjectAccessReviewKind = 'SubjectAccessReview';

export interface SubjectAccessReviewSpec {
  resourceAttributes?: ResourceAttributes;
  nonResourceAttributes?: NonResourceAttributes;
  user?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
  uid?: string;
}

export interface SubjectAccessReviewStatus {
  /** Always present on the wire. */
  allowed: boolean;
  /** omitempty: only ever written as true, and never together with allowed. */
  denied?: boolean;
  reason?: string;
  evaluationError?: string;
}

export interface SubjectAccessReview {
  apiVersion?: string;
  kind?: string;
  metadata?: Record<string, unknown>;
  spec: SubjectAccessReviewSpec;
  status?: SubjectAccessReviewStatus;
}
