// The embedded RBAC authorizer: answers SubjectAccessReview-shaped questions from the
// Role/ClusterRole/RoleBinding/ClusterRoleBinding objects of a cluster-state file, as
// kube-apiserver's authorizer chain would for RBAC: members of a privileged group
// (system:masters) are allowed first with no reason; otherwise the first allowing rule wins and
// the reason names its binding; there is no deny. Role-resolution errors never stop the walk; like
// upstream they are reported only when nothing allowed, inside the reason, and the authorizer's own
// error stays nil. The chain puts the authorizer's name before a no-opinion reason, so a denial
// reads "rbac: RBAC: ..." and an allow "RBAC: allowed by ..." — what a cluster's SubjectAccessReview shows too.

import { aggregateMessage } from '../../../api/aggregate.ts';
import type { PolicyRule } from '../../../api/rbac.ts';
import { type AuthorizationAttributes, type AuthorizationResult, type Authorizer, Decision } from '../../../ports/authorizer.ts';
import type { GrantFinder } from '../../../ports/grants.ts';
import type { ClusterState } from '../cluster-state.ts';
import { resolveAggregation } from './aggregation.ts';
import { grantFinderOver } from './closest-grant.ts';
import { lintRbac } from './lint.ts';
import { rbacRequestFrom } from './request.ts';
import { ruleAllows } from './rule-matching.ts';
import { RuleResolver } from './rule-resolver.ts';

export const SystemPrivilegedGroup = 'system:masters';

/**
 * The name kube-apiserver's authorizer chain gives the RBAC authorizer under --authorization-mode=RBAC
 * (the mode in lower case); the chain prefixes each no-opinion reason with it (union authorizer).
 */
const rbacAuthorizerName = 'rbac';

export interface RbacAuthorizerOptions {
  /** Groups allowed everything before RBAC is consulted; default ["system:masters"], [] for none. */
  privilegedGroups?: readonly string[];
  /**
   * "resolve" (default): fill aggregated ClusterRoles from their selectors, as the aggregation
   * controller would (a cluster-state file may come from source manifests). "as-stored": read every
   * ClusterRole's rules as they are, as kube-apiserver's RBAC authorizer does — for objects read
   * from a cluster, where the controller has already written them.
   */
  aggregation?: 'resolve' | 'as-stored';
}

export type RbacAuthorizer = Authorizer & {
  /** Manifest problems found at load (overbroad non-resource URLs, missing roles, ...). */
  lintWarnings(): string[];
  /** The same answer as authorize(), returned directly. */
  evaluate(attributes: AuthorizationAttributes): AuthorizationResult;
  /** The requester's nearest grants over the same objects, for explaining a denial. */
  readonly grants: GrantFinder;
};

export function createRbacAuthorizer(
  state: Pick<ClusterState, 'roles' | 'clusterRoles' | 'roleBindings' | 'clusterRoleBindings'>,
  options: RbacAuthorizerOptions = {},
): RbacAuthorizer {
  const privilegedGroups = new Set(options.privilegedGroups ?? [SystemPrivilegedGroup]);
  const { clusterRoles, handWrittenRules } =
    options.aggregation === 'as-stored'
      ? { clusterRoles: state.clusterRoles, handWrittenRules: new Map<string, PolicyRule[]>() }
      : resolveAggregation(state.clusterRoles);
  const objects = { roles: state.roles, clusterRoles, roleBindings: state.roleBindings, clusterRoleBindings: state.clusterRoleBindings };
  const resolver = new RuleResolver(objects);
  let warnings: string[] | undefined;
  let grants: GrantFinder | undefined;

  function decide(attributes: AuthorizationAttributes): AuthorizationResult {
    if ((attributes.user.groups ?? []).some((group) => privilegedGroups.has(group))) {
      return { decision: Decision.Allow, reason: '' };
    }
    const request = rbacRequestFrom(attributes);
    let allowedBy: string | undefined;
    const errors: string[] = [];
    resolver.visitRulesFor(request.user, request.namespace, (source, rule, error) => {
      if (source && rule && ruleAllows(request, rule)) {
        allowedBy = source();
        return false;
      }
      if (error !== undefined) errors.push(error);
      return true;
    });
    if (allowedBy !== undefined) return { decision: Decision.Allow, reason: `RBAC: allowed by ${allowedBy}` };
    return { decision: Decision.NoOpinion, reason: errors.length > 0 ? `${rbacAuthorizerName}: RBAC: ${aggregateMessage(errors)}` : '' };
  }

  return {
    authorize: async (attributes) => decide(attributes),
    lintWarnings: () => [...(warnings ??= lintRbac(objects, resolver, handWrittenRules))],
    evaluate: decide,
    // Built on first use: only a denial being explained asks.
    get grants() {
      return (grants ??= grantFinderOver(resolver, state.roleBindings));
    },
  };
}
