// Does one PolicyRule allow one request? (upstream pkg/apis/rbac/v1/evaluation_helpers.go and
// RuleAllows in plugin/pkg/auth/authorizer/rbac/rbac.go). Every part must match; "*" matches
// anything; matching is exact and case-sensitive.
import type { PolicyRule } from '../../../api/rbac.ts';
import type { RbacRequest } from './request.ts';

export const VerbAll = '*';
export const APIGroupAll = '*';
export const ResourceAll = '*';
export const NonResourceAll = '*';

/** A rule field as a list; anything else (a malformed rule) matches nothing, never "everything". */
function list(value: readonly string[] | undefined): readonly string[] {
  return Array.isArray(value) ? value : [];
}

export function verbMatches(rule: PolicyRule, requestedVerb: string): boolean {
  return list(rule.verbs).some((verb) => verb === VerbAll || verb === requestedVerb);
}

export function apiGroupMatches(rule: PolicyRule, requestedGroup: string): boolean {
  return list(rule.apiGroups).some((group) => group === APIGroupAll || group === requestedGroup);
}

/**
 * `combined` is "resource" or "resource/subresource". A subresource request never matches a bare
 * resource rule ("pods" does not cover "pods/status"); "*\/status" covers every resource's status.
 */
export function resourceMatches(rule: PolicyRule, combined: string, requestedSubresource: string): boolean {
  for (const ruleResource of list(rule.resources)) {
    if (ruleResource === ResourceAll || ruleResource === combined) return true;
    if (requestedSubresource === '') continue;
    if (
      ruleResource.length === requestedSubresource.length + 2 &&
      ruleResource.startsWith('*/') &&
      ruleResource.endsWith(requestedSubresource)
    ) {
      return true;
    }
  }
  return false;
}

/** An empty resourceNames list allows every name, including none. */
export function resourceNameMatches(rule: PolicyRule, requestedName: string): boolean {
  if (rule.resourceNames !== undefined && !Array.isArray(rule.resourceNames)) return false;
  const names = list(rule.resourceNames);
  return names.length === 0 || names.includes(requestedName);
}

/**
 * Exact, "*", or — when the rule ends in "*" — a bare string prefix: "/healthz*" also matches
 * "/healthzzz" (see lint.ts).
 */
export function nonResourceURLMatches(rule: PolicyRule, requestedURL: string): boolean {
  for (const ruleURL of list(rule.nonResourceURLs)) {
    if (ruleURL === NonResourceAll || ruleURL === requestedURL) return true;
    if (ruleURL.endsWith('*') && requestedURL.startsWith(ruleURL.replace(/\*+$/, ''))) return true;
  }
  return false;
}

export function ruleAllows(request: RbacRequest, rule: PolicyRule): boolean {
  if (request.resourceRequest) {
    const combined = request.subresource === '' ? request.resource : `${request.resource}/${request.subresource}`;
    return (
      verbMatches(rule, request.verb) &&
      apiGroupMatches(rule, request.apiGroup) &&
      resourceMatches(rule, combined, request.subresource) &&
      resourceNameMatches(rule, request.name)
    );
  }
  return verbMatches(rule, request.verb) && nonResourceURLMatches(rule, request.path);
}
