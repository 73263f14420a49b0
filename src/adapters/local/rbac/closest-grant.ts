// The grant nearest to a denied question, for the explanation of a denial: among the rules bound to
// the requester where the question was asked, the one about the same resource (or its parent, for
// a subresource) that lacks the fewest parts — a Role allowing update on deployments, asked for
// deployments/finalizers. Failing that, a RoleBinding in another namespace that would allow the
// question there. Asked only when a denial is explained, never on the authorization path.
import type { PolicyRule, RoleBinding } from '../../../api/rbac.ts';
import type { AuthorizationAttributes } from '../../../ports/authorizer.ts';
import { type ClosestGrant, type GrantFinder, GrantShortfall } from '../../../ports/grants.ts';
import { type RbacRequest, rbacRequestFrom } from './request.ts';
import { apiGroupMatches, resourceMatches, resourceNameMatches, ruleAllows, verbMatches } from './rule-matching.ts';
import { describeRoleBinding, type RuleResolver, roleRefOf } from './rule-resolver.ts';
import { keysOf, subjectKey } from './subject-index.ts';
import { appliesTo } from './subjects.ts';

/** Other namespaces searched for a RoleBinding that would allow the question there, at most. */
const maxNamespacesSearched = 1000;

/** The requester's nearest grants over an evaluator's resolver (the RBAC authorizer's own, so the objects are indexed once). */
export function grantFinderOver(resolver: RuleResolver, roleBindings: readonly RoleBinding[]): GrantFinder {
  let bySubject: Map<string, IndexedBinding[]> | undefined;
  return {
    closestGrant(attributes) {
      const request = rbacRequestFrom(attributes);
      const here = nearestHere(resolver, request);
      if (here !== undefined || !request.resourceRequest || request.namespace === '') return here;
      return elsewhere(resolver, attributes, request, (bySubject ??= indexBySubject(roleBindings)));
    },
  };
}

function nearestHere(resolver: RuleResolver, request: RbacRequest): ClosestGrant | undefined {
  let best: ClosestGrant | undefined;
  resolver.visitRulesFor(request.user, request.namespace, (source, rule) => {
    if (source === undefined || rule === undefined) return true;
    const lacks = shortfalls(rule, request);
    if (lacks !== undefined && lacks.length > 0 && (best === undefined || lacks.length < best.lacks.length))
      best = { source: source(), rule, lacks };
    return true;
  });
  return best;
}

interface IndexedBinding {
  readonly binding: RoleBinding;
  readonly namespace: string;
  /** Its place in load order, which decides between two bindings of one namespace. */
  readonly order: number;
}

/** RoleBindings by the keys of the subjects they name (subject-index.ts), built once per evaluator. */
function indexBySubject(roleBindings: readonly RoleBinding[]): Map<string, IndexedBinding[]> {
  const index = new Map<string, IndexedBinding[]>();
  roleBindings.forEach((binding, order) => {
    const namespace = binding.metadata?.namespace ?? '';
    if (namespace === '') return;
    for (const subject of binding.subjects ?? []) {
      const key = subjectKey(subject, namespace);
      if (key === undefined) continue;
      const entries = index.get(key);
      const entry = { binding, namespace, order };
      if (entries === undefined) index.set(key, [entry]);
      else if (entries[entries.length - 1]!.binding !== binding) entries.push(entry);
    }
  });
  return index;
}

/**
 * A RoleBinding of the requester's that would allow exactly this question in another namespace: only
 * the bindings that name the requester or one of their groups are looked at, the first namespace in
 * sorted order wins. ClusterRoleBindings apply everywhere: one that allowed it would have allowed it here.
 */
function elsewhere(
  resolver: RuleResolver,
  attributes: AuthorizationAttributes,
  request: RbacRequest,
  bySubject: ReadonlyMap<string, readonly IndexedBinding[]>,
): ClosestGrant | undefined {
  const candidates = new Set<IndexedBinding>();
  for (const key of keysOf(attributes.user))
    for (const entry of bySubject.get(key) ?? []) if (entry.namespace !== request.namespace) candidates.add(entry);
  const sorted = [...candidates].sort((a, b) => (a.namespace === b.namespace ? a.order - b.order : a.namespace < b.namespace ? -1 : 1));
  let namespaces = 0;
  let previous: string | undefined;
  for (const { binding, namespace } of sorted) {
    if (namespace !== previous && ++namespaces > maxNamespacesSearched) return undefined;
    previous = namespace;
    const subjectIndex = appliesTo(attributes.user, binding.subjects, namespace);
    if (subjectIndex < 0) continue;
    const resolved = resolver.getRoleReferenceRules(roleRefOf(binding), namespace);
    const there = { ...request, namespace };
    const rule = resolved.rules?.find((candidate) => ruleAllows(there, candidate));
    if (rule !== undefined) return { source: describeRoleBinding(binding, namespace, subjectIndex), rule, lacks: [], elsewhere: namespace };
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
