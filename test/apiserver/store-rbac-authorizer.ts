// The stand-in's SubjectAccessReview answered as kube-apiserver's authorizer chain answers it with
// --authorization-mode=RBAC: system:masters first, then RBAC over the Roles, ClusterRoles and
// bindings in the stand-in's own object store, read as stored (no aggregation at read time: that is
// the aggregation controller's job, and it writes the rules into the store). The evaluator is
// rebuilt only when the store has changed.

import { createRbacAuthorizer, type RbacAuthorizer } from '../../src/adapters/local/rbac/index.ts';
import type { ClusterRole, ClusterRoleBinding, Role, RoleBinding } from '../../src/api/rbac.ts';
import type { Authorizer } from '../../src/ports/authorizer.ts';
import type { ObjectStore } from './object-store.ts';
import { clusterRoleBindingType, clusterRoleType, roleBindingType, roleType } from './resource-types.ts';

export function storeRbacAuthorizer(store: ObjectStore): Authorizer {
  let built: { version: string; evaluator: RbacAuthorizer } | undefined;
  const current = (): RbacAuthorizer => {
    if (built?.version !== store.resourceVersion) {
      const evaluator = createRbacAuthorizer(
        {
          roles: store.list(roleType) as Role[],
          clusterRoles: store.list(clusterRoleType) as ClusterRole[],
          roleBindings: store.list(roleBindingType) as RoleBinding[],
          clusterRoleBindings: store.list(clusterRoleBindingType) as ClusterRoleBinding[],
        },
        { aggregation: 'as-stored' },
      );
      built = { version: store.resourceVersion, evaluator };
    }
    return built.evaluator;
  };
  return { authorize: async (attributes) => current().evaluate(attributes) };
}
