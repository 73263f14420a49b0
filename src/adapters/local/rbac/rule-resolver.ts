// Which rules apply to a user in a namespace, binding by binding (upstream DefaultRuleResolver,
// pkg/registry/rbac/validation/rule.go): ClusterRoleBindings always; RoleBindings only for a
// request in their own namespace, whether they reference a Role or a ClusterRole. A binding whose
// role cannot be found yields an error and the walk goes on: rules only ever add permissions.

import { aggregateMessage } from '../../../api/aggregate.ts';
import { goQuote } from '../../../api/go-format.ts';
import type { ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding, RoleRef } from '../../../api/rbac.ts';
import type { UserInfo } from '../../../api/types.ts';
import { SubjectIndex } from './subject-index.ts';
import { appliesTo, describeSubject } from './subjects.ts';

/**
 * Called per rule (with a lazy description of the binding that granted it) or per error.
 * Returning false stops the walk.
 */
export type RuleVisitor = (source: (() => string) | undefined, rule: PolicyRule | undefined, error: string | undefined) => boolean;

export interface RbacObjects {
  roles: readonly Role[];
  clusterRoles: readonly ClusterRole[];
  roleBindings: readonly RoleBinding[];
  clusterRoleBindings: readonly ClusterRoleBinding[];
}

export type RoleReferenceRules = { rules: readonly PolicyRule[]; error?: undefined } | { rules?: undefined; error: string };

const nameOf = (object: { metadata?: { name?: string } }) => object.metadata?.name ?? '';
const namespaceOf = (object: { metadata?: { namespace?: string } }) => object.metadata?.namespace ?? '';
/** A manifest without roleRef resolves to an unsupported kind "" rather than crashing. */
export const roleRefOf = (binding: RoleBinding): RoleRef => {
  const ref = binding.roleRef as Partial<RoleRef> | undefined;
  return { apiGroup: ref?.apiGroup ?? '', kind: ref?.kind ?? '', name: ref?.name ?? '' };
};

/** How RBAC's reasons name a RoleBinding and the subject of it that applied. */
export function describeRoleBinding(binding: RoleBinding, namespace: string, subjectIndex: number): string {
  const roleRef = roleRefOf(binding);
  return `RoleBinding ${goQuote(`${nameOf(binding)}/${namespace}`)} of ${roleRef.kind} ${goQuote(roleRef.name)} to ${describeSubject(binding.subjects![subjectIndex]!, namespace)}`;
}

export class RuleResolver {
  readonly #roles = new Map<string, Role>();
  readonly #clusterRoles = new Map<string, ClusterRole>();
  readonly #clusterRoleBindings: readonly ClusterRoleBinding[];
  readonly #clusterRoleBindingIndex = new SubjectIndex();
  readonly #roleBindingsByNamespace = new Map<string, { bindings: RoleBinding[]; index: SubjectIndex }>();

  constructor(objects: RbacObjects) {
    for (const role of objects.roles) if (namespaceOf(role) !== '') this.#roles.set(`${namespaceOf(role)}/${nameOf(role)}`, role);
    for (const role of objects.clusterRoles) this.#clusterRoles.set(nameOf(role), role);
    this.#clusterRoleBindings = objects.clusterRoleBindings;
    objects.clusterRoleBindings.forEach((binding, position) => {
      this.#clusterRoleBindingIndex.add(binding.subjects, '', position);
    });
    for (const binding of objects.roleBindings) {
      const namespace = namespaceOf(binding);
      if (namespace === '') continue; // Applies nowhere: RoleBindings are only listed per namespace.
      let entry = this.#roleBindingsByNamespace.get(namespace);
      if (!entry) this.#roleBindingsByNamespace.set(namespace, (entry = { bindings: [], index: new SubjectIndex() }));
      entry.index.add(binding.subjects, namespace, entry.bindings.length);
      entry.bindings.push(binding);
    }
  }

  /**
   * GetRoleReferenceRules, with the listers' NotFound wording. `bindingNamespace` is "" for a
   * ClusterRoleBinding, where a Role reference can never resolve.
   */
  getRoleReferenceRules(roleRef: RoleRef, bindingNamespace: string): RoleReferenceRules {
    switch (roleRef.kind) {
      case 'Role': {
        const role = bindingNamespace === '' ? undefined : this.#roles.get(`${bindingNamespace}/${roleRef.name}`);
        return role ? { rules: role.rules ?? [] } : { error: `role.rbac.authorization.k8s.io ${goQuote(roleRef.name)} not found` };
      }
      case 'ClusterRole': {
        const role = this.#clusterRoles.get(roleRef.name);
        return role ? { rules: role.rules ?? [] } : { error: `clusterrole.rbac.authorization.k8s.io ${goQuote(roleRef.name)} not found` };
      }
      default:
        return { error: `unsupported role reference kind: ${goQuote(roleRef.kind)}` };
    }
  }

  visitRulesFor(user: UserInfo, namespace: string, visitor: RuleVisitor): void {
    for (const position of this.#clusterRoleBindingIndex.candidates(user)) {
      const binding = this.#clusterRoleBindings[position]!;
      const subjectIndex = appliesTo(user, binding.subjects, '');
      if (subjectIndex < 0) continue;
      const roleRef = roleRefOf(binding);
      const source = () =>
        `ClusterRoleBinding ${goQuote(nameOf(binding))} of ${roleRef.kind} ${goQuote(roleRef.name)} to ${describeSubject(binding.subjects![subjectIndex]!, '')}`;
      if (!this.#visitBinding(roleRef, '', source, visitor)) return;
    }
    if (namespace === '') return;
    const entry = this.#roleBindingsByNamespace.get(namespace);
    if (!entry) return;
    for (const position of entry.index.candidates(user)) {
      const binding = entry.bindings[position]!;
      const subjectIndex = appliesTo(user, binding.subjects, namespace);
      if (subjectIndex < 0) continue;
      const roleRef = roleRefOf(binding);
      const source = () => describeRoleBinding(binding, namespace, subjectIndex);
      if (!this.#visitBinding(roleRef, namespace, source, visitor)) return;
    }
  }

  /** RulesFor: every applicable rule plus the aggregated resolution errors. */
  rulesFor(user: UserInfo, namespace: string): { rules: PolicyRule[]; error?: string } {
    const rules: PolicyRule[] = [];
    const errors: string[] = [];
    this.visitRulesFor(user, namespace, (_source, rule, error) => {
      if (rule) rules.push(rule);
      if (error !== undefined) errors.push(error);
      return true;
    });
    return errors.length === 0 ? { rules } : { rules, error: aggregateMessage(errors) };
  }

  #visitBinding(roleRef: RoleRef, namespace: string, source: () => string, visitor: RuleVisitor): boolean {
    const resolved = this.getRoleReferenceRules(roleRef, namespace);
    if (resolved.error !== undefined) return visitor(undefined, undefined, resolved.error);
    for (const rule of resolved.rules) if (!visitor(source, rule, undefined)) return false;
    return true;
  }
}
