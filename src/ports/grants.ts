// The nearest thing a requester already has to a permission they were denied, from RBAC objects the
// process holds: the local backend's cluster-state file, or the RBAC mirror's caches. A cluster's
// SubjectAccessReview API says only yes or no, so the cluster backend has none without the mirror.
import type { PolicyRule } from '../api/rbac.ts';
import type { AuthorizationAttributes } from './authorizer.ts';

/** What a rule lacks for a question: a verb, an API group, the subresource, or the name asked about. */
export const GrantShortfall = {
  Verb: 'verb',
  ApiGroup: 'api-group',
  Subresource: 'subresource',
  Name: 'name',
} as const;
export type GrantShortfall = (typeof GrantShortfall)[keyof typeof GrantShortfall];

export interface ClosestGrant {
  /** The binding and role the rule comes from, as RBAC's reasons name them. */
  readonly source: string;
  readonly rule: PolicyRule;
  /** What the rule lacks; empty when it allows the question exactly, in `elsewhere`. */
  readonly lacks: readonly GrantShortfall[];
  /** The namespace a RoleBinding grants the question in, when that is not the namespace asked about. */
  readonly elsewhere?: string;
}

export interface GrantFinder {
  closestGrant(attributes: AuthorizationAttributes): ClosestGrant | undefined;
}
