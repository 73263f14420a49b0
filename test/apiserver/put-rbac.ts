// RBAC objects written into the stand-in's store, each kind under its own resource type: what a
// test or benchmark loads before SubjectAccessReview and the RBAC mirror read them back.
import type { ClusterRole, ClusterRoleBinding, Role, RoleBinding } from '../../src/api/rbac.ts';
import type { ObjectStore } from './object-store.ts';
import { clusterRoleBindingType, clusterRoleType, roleBindingType, roleType } from './resource-types.ts';

export interface RbacObjects {
  roles?: readonly Role[];
  clusterRoles?: readonly ClusterRole[];
  roleBindings?: readonly RoleBinding[];
  clusterRoleBindings?: readonly ClusterRoleBinding[];
}

/** Puts every object, kind by kind (roles, cluster roles, role bindings, cluster role bindings), each kind in the order given. */
export function putRbac(store: ObjectStore, objects: RbacObjects): void {
  for (const role of objects.roles ?? []) store.put(roleType, role);
  for (const role of objects.clusterRoles ?? []) store.put(clusterRoleType, role);
  for (const binding of objects.roleBindings ?? []) store.put(roleBindingType, binding);
  for (const binding of objects.clusterRoleBindings ?? []) store.put(clusterRoleBindingType, binding);
}
