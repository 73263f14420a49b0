// The grant nearest to a denied question, for the explanation of a denial: among the rules bound to
// the requester where the question was asked, the one about the same resource (or its parent, for
// a subresource) that lacks the fewest parts — a Role allowing update on deployments, asked for
// deployments/finalizers. Failing that, a RoleBinding in another namespace that would allow the
// question there. Asked only when a denial is explained, never on the authorization path.
import type { ClusterState } from '../cluster-state.ts';
import type { PolicyRule, RoleBinding } from '../../../api/rbac.ts';
import type { AuthorizationAttributes } from '../../../ports/authorizer.ts';
import { GrantShortfall, type ClosestGrant, type GrantFinder } from '../../../ports/grants.ts';
import { resolveAggregation } from './aggregation.ts';
import { rbacRequestFrom, type RbacRequest } from './request.ts';
import { apiGroupMatches, resourceMatches, resourceNameMatches, ruleAllows, verbMatches } from './rule-matching.ts';
import { RuleResolver } from './rule-resolver.ts';

/** Other namespaces searched for a RoleBinding that would allow the question there, at most. */
const maxNamespacesSearched = 1000;

export function createGrantFinder(state: Pick<ClusterState, 'roles' | 'clusterRoles' | 'roleBindings' | 'clusterRoleBindings'>): GrantFinder {
  const { clusterRoles } = resolveAggregation(state.clusterRoles);
  return grantFinderOver(new RuleResolver({ roles: state.roles, clusterRoles, roleBindings: state.roleBindings, clusterRoleBindings: state.clusterRoleBindings }), state.roleBindings);
}

/** The same, over an evaluator's resolver (the RBAC authorizer's own, so the objects are indexed once). */
export function grantFinderOver(resolver: RuleResolver, roleBindings: readonly RoleBinding[]): GrantFinder {
  const namespaces = [...new Set(roleBindings.map((b) => b.metadata?.namespace ?? '').filter((n) => n !== ''))].sort().slice(0, maxNamespacesSearched);
  return {
    closestGrant(attributes) {
      const request = rbacRequestFrom(attributes);
      return nearestHere(resolver, request) ?? (request.resourceRequest && request.namespace !== '' ? elsewhere(resolver, attributes, request, namespaces) : undefined);
    },
  };
}

function nearestHere(resolver: RuleResolver, request: RbacRequest): ClosestGrant | undefined {
  let best: ClosestGrant | undefined;
  resolver.visitRulesFor(request.user, request.namespace, (source, rule) => {
    if (source === undefined || rule === undefined) return true;
    const lacks = shortfalls(rule, request);
    if (lacks !== undefined && lacks.length > 0 && (best === undefined || lacks.length < best.lacks.length)) best = { source: source(), rule, lacks };
    return true;
  });
  return best;
}

/** A RoleBinding of the requester's that would allow exactly this question in another namespace. */
function elsewhere(resolver: RuleResolver, attributes: AuthorizationAttributes, request: RbacRequest, namespaces: readonly string[]): ClosestGrant | undefined {
  for (const namespace of namespaces) {
    if (namespace === request.namespace) continue;
    const there = { ...request, namespace };
    let found: ClosestGrant | undefined;
    resolver.visitRulesFor(attributes.user, namespace, (source, rule) => {
      if (source === undefined || rule === undefined) return true;
      const described = source();
      // ClusterRoleBindings apply everywhere: one that allowed it would have allowed it here.
      if (!described.startsWith('RoleBinding') || !ruleAllows(there, rule)) return true;
      found = { source: described, rule, lacks: [], elsewhere: namespace };
      return false;
    });
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * What `rule` lacks to allow `request`, or undefined when it is about something else altogether
 * (another resource, or another non-resource URL).
 */
function shortfalls(rule: PolicyRule, request: RbacRequest): GrantShortfall[] | undefined {
  const lacks: GrantShortfall[] = [];
  if (!request.resourceRequest) {
    const sameUrl = (rule.nonResourceURLs ?? []).includes(request.path);
    if (!sameUrl) return undefined;
    if (!verbMatches(rule, request.verb)) lacks.push(GrantShortfall.Verb);
    return lacks;
  }
  const combined = request.subresource === '' ? request.resource : `${request.resource}/${request.subresource}`;
  if (!resourceMatches(rule, combined, request.subresource)) {
    // The parent resource is granted but not the subresource asked about.
    if (request.subresource === '' || !resourceMatches(rule, request.resource, '')) return undefined;
    lacks.push(GrantShortfall.Subresource);
  }
  if (!verbMatches(rule, request.verb)) lacks.push(GrantShortfall.Verb);
  if (!apiGroupMatches(rule, request.apiGroup)) lacks.push(GrantShortfall.ApiGroup);
  if (!resourceNameMatches(rule, request.name)) lacks.push(GrantShortfall.Name);
  return lacks;
}
