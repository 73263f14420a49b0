// Builders mirroring upstream rbac_test.go's newRule/newRole/newClusterRole/newRoleBinding/
// newClusterRoleBinding, so the ported tables read like the originals. Test-only.
import type { ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding, Subject } from '../../../../api/rbac.ts';
import type { AuthorizationAttributes } from '../../../../ports/authorizer.ts';

/** Like upstream, each list is strings.Split(s, ","): "" becomes [""]. */
export function newRule(verbs: string, apiGroups: string, resources: string, nonResourceURLs: string): PolicyRule {
  return {
    verbs: verbs.split(','),
    apiGroups: apiGroups.split(','),
    resources: resources.split(','),
    nonResourceURLs: nonResourceURLs.split(','),
  };
}

export function newRole(name: string, namespace: string, ...rules: PolicyRule[]): Role {
  return { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name, namespace }, rules };
}

export function newClusterRole(name: string, ...rules: PolicyRule[]): ClusterRole {
  return { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name }, rules };
}

/** "User:alice", "Group:admins", "ServiceAccount:default" (namespace given separately if needed). */
export function subjects(...specs: string[]): Subject[] {
  return specs.map((spec) => {
    const at = spec.indexOf(':');
    const kind = spec.slice(0, at);
    return { kind, name: spec.slice(at + 1), apiGroup: kind === 'ServiceAccount' ? '' : 'rbac.authorization.k8s.io' };
  });
}

export function newClusterRoleBinding(roleName: string, ...subjectSpecs: string[]): ClusterRoleBinding {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: {},
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: roleName },
    subjects: subjects(...subjectSpecs),
  };
}

export const bindToRole = 'Role';
export const bindToClusterRole = 'ClusterRole';

export function newRoleBinding(namespace: string, roleName: string, kind: string, ...subjectSpecs: string[]): RoleBinding {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { namespace },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind, name: roleName },
    subjects: subjects(...subjectSpecs),
  };
}

/** upstream defaultAttributes{user, groups, verb, resource, subresource, namespace, apiGroup}. */
export function resourceAttributes(
  user: string,
  groups: string,
  verb: string,
  resource: string,
  subresource: string,
  namespace: string,
  apiGroup: string,
): AuthorizationAttributes {
  return {
    user: { username: user, groups: groups.split(',') },
    resourceAttributes: { verb, resource, subresource, namespace, group: apiGroup },
  };
}

export function nonResourceAttributes(user: { username?: string; groups?: string[] }, verb: string, path: string): AuthorizationAttributes {
  return { user, nonResourceAttributes: { verb, path } };
}
