// Resource types the stand-in serves GET/LIST/WATCH for when a test asks (StandInOptions.resources).
import type { ResourceType } from './object-store.ts';

/** Namespaces: cluster-scoped, at /api/v1/namespaces[/name]. */
export const namespaceType: ResourceType = { group: '', version: 'v1', resource: 'namespaces', kind: 'Namespace', namespaced: false };

/** rbac.authorization.k8s.io/v1: what kube-apiserver's RBAC authorizer (and the RBAC mirror) reads. */
export const roleType: ResourceType = {
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  resource: 'roles',
  kind: 'Role',
  namespaced: true,
};
export const clusterRoleType: ResourceType = {
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  resource: 'clusterroles',
  kind: 'ClusterRole',
  namespaced: false,
};
export const roleBindingType: ResourceType = {
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  resource: 'rolebindings',
  kind: 'RoleBinding',
  namespaced: true,
};
export const clusterRoleBindingType: ResourceType = {
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  resource: 'clusterrolebindings',
  kind: 'ClusterRoleBinding',
  namespaced: false,
};
export const rbacTypes = [roleType, clusterRoleType, roleBindingType, clusterRoleBindingType] as const;
