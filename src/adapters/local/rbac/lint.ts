// Warnings about RBAC manifests that are legal but almost certainly not what their author meant,
// found once at load: they never change a decision, they explain surprising ones.

import { goQuote } from '../../../api/go-format.ts';
import type { ClusterRole, PolicyRule, Role } from '../../../api/rbac.ts';
import { type RbacObjects, type RuleResolver, roleRefOf } from './rule-resolver.ts';

const label = (kind: string, object: { metadata?: { name?: string; namespace?: string } }) => {
  const namespace = object.metadata?.namespace;
  return `${kind} ${goQuote(namespace ? `${namespace}/${object.metadata?.name ?? ''}` : (object.metadata?.name ?? ''))}`;
};

/**
 * "/healthz*" is a bare string prefix: it also matches "/healthzzz" and "/healthz-internal".
 * Only "*" alone, or a prefix ending in "/" before the stars, means what it looks like.
 */
export function isOverbroadNonResourceURL(url: string): boolean {
  if (!url.endsWith('*')) return false;
  const prefix = url.replace(/\*+$/, '');
  return prefix !== '' && !prefix.endsWith('/');
}

function ruleWarnings(kind: string, role: Role | ClusterRole, namespaced: boolean): string[] {
  const warnings: string[] = [];
  (role.rules ?? []).forEach((rule: PolicyRule, index) => {
    for (const url of rule.nonResourceURLs ?? []) {
      if (namespaced) {
        warnings.push(
          `${label(kind, role)} rule ${index}: nonResourceURL ${goQuote(url)} has no effect: non-resource URLs are only granted through ClusterRoleBindings`,
        );
      } else if (isOverbroadNonResourceURL(url)) {
        const prefix = url.replace(/\*+$/, '');
        warnings.push(
          `${label(kind, role)} rule ${index}: nonResourceURL ${goQuote(url)} matches every path that starts with ${goQuote(prefix)}, such as ${goQuote(`${prefix}-internal`)}; ` +
            `to match only ${goQuote(prefix)} and the paths below it, list ${goQuote(prefix)} and ${goQuote(`${prefix}/*`)}`,
        );
      }
    }
  });
  return warnings;
}

export function lintRbac(objects: RbacObjects, resolver: RuleResolver, handWrittenRules: ReadonlyMap<string, PolicyRule[]>): string[] {
  const warnings: string[] = [];
  for (const role of objects.clusterRoles) warnings.push(...ruleWarnings('ClusterRole', role, false));
  for (const role of objects.roles) {
    if (!role.metadata?.namespace) warnings.push(`${label('Role', role)} has no metadata.namespace: no RoleBinding can reference it`);
    warnings.push(...ruleWarnings('Role', role, true));
  }
  for (const [name, rules] of handWrittenRules) {
    warnings.push(
      `ClusterRole ${goQuote(name)} has an aggregationRule and ${rules.length} rule(s) its selectors do not produce; ` +
        'the aggregation controller would replace them, but this evaluator keeps them',
    );
  }
  for (const binding of objects.clusterRoleBindings) {
    const error = resolver.getRoleReferenceRules(roleRefOf(binding), '').error;
    if (error !== undefined) warnings.push(`${label('ClusterRoleBinding', binding)}: ${error}; it grants nothing`);
  }
  for (const binding of objects.roleBindings) {
    const namespace = binding.metadata?.namespace ?? '';
    if (namespace === '') {
      warnings.push(`${label('RoleBinding', binding)} has no metadata.namespace: it applies in no namespace`);
      continue;
    }
    const error = resolver.getRoleReferenceRules(roleRefOf(binding), namespace).error;
    if (error !== undefined) warnings.push(`${label('RoleBinding', binding)}: ${error}; it grants nothing`);
  }
  return warnings;
}
