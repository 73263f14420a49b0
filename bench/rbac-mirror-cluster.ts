// The RBAC objects scenario 6's API server holds beside bench/cluster-state.yaml: a group binding so
// that many distinct narrow identities exist (scenario 3's narrow user, as a team), and — for the
// memory run — a cluster-sized set: 2,000 namespaces with 5 RoleBindings and a Role each (10,000
// RoleBindings, 2,000 Roles), 500 ClusterRoles of 6 rules and 100 ClusterRoleBindings. Deterministic:
// the same objects every run.
import type { ClusterRole, ClusterRoleBinding, Role, RoleBinding } from '../src/api/rbac.ts';

const rbacGroup = 'rbac.authorization.k8s.io';

/** Distinct narrow identities: bench-narrow-<n> in group bench-narrow-team, which may do what bench-narrow may. */
export const narrowTeamBinding: RoleBinding = {
  metadata: { name: 'bench-narrow-team-deployer', namespace: 'bench' },
  roleRef: { apiGroup: rbacGroup, kind: 'Role', name: 'deployer' },
  subjects: [{ kind: 'Group', apiGroup: rbacGroup, name: 'bench-narrow-team' }],
};

export const clusterSize = {
  namespaces: 2000,
  roleBindingsPerNamespace: 5,
  clusterRoles: 500,
  rulesPerClusterRole: 6,
  clusterRoleBindings: 100,
} as const;

export interface ClusterSizedRbac {
  roles: Role[];
  clusterRoles: ClusterRole[];
  roleBindings: RoleBinding[];
  clusterRoleBindings: ClusterRoleBinding[];
}

export function clusterSizedRbac(): ClusterSizedRbac {
  const groups = ['', 'apps', 'batch', 'networking.k8s.io', 'policy', 'example.com'];
  const resources = [
    'pods',
    'services',
    'configmaps',
    'deployments',
    'jobs',
    'ingresses',
    'poddisruptionbudgets',
    'widgets',
    'pods/log',
    'deployments/scale',
  ];
  const verbs = [
    ['get', 'list', 'watch'],
    ['create', 'update', 'patch', 'delete'],
    ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
  ];
  const clusterRoles: ClusterRole[] = Array.from({ length: clusterSize.clusterRoles }, (_, i) => ({
    metadata: { name: `tenant-role-${i}`, labels: { 'example.com/tier': `tier-${i % 7}` } },
    rules: Array.from({ length: clusterSize.rulesPerClusterRole }, (_, r) => ({
      apiGroups: [groups[(i + r) % groups.length]!],
      resources: [resources[(i * 3 + r) % resources.length]!, resources[(i + r * 5) % resources.length]!],
      verbs: verbs[(i + r) % verbs.length]!,
    })),
  }));
  const roles: Role[] = [];
  const roleBindings: RoleBinding[] = [];
  for (let n = 0; n < clusterSize.namespaces; n++) {
    const namespace = `team-${String(n).padStart(4, '0')}`;
    roles.push({
      metadata: { name: 'team-config', namespace },
      rules: [{ apiGroups: [''], resources: ['configmaps', 'secrets'], verbs: ['get', 'list'] }],
    });
    for (let b = 0; b < clusterSize.roleBindingsPerNamespace; b++) {
      const i = n * clusterSize.roleBindingsPerNamespace + b;
      roleBindings.push({
        metadata: {
          name: `binding-${b}`,
          namespace,
          labels: { 'app.kubernetes.io/managed-by': 'bench' },
          annotations: { 'example.com/owner': `team-${n}` },
        },
        roleRef:
          b === 0
            ? { apiGroup: rbacGroup, kind: 'Role', name: 'team-config' }
            : { apiGroup: rbacGroup, kind: 'ClusterRole', name: `tenant-role-${(i * 7) % clusterSize.clusterRoles}` },
        subjects: [
          { kind: 'User', apiGroup: rbacGroup, name: `user-${i}@example.com` },
          { kind: 'Group', apiGroup: rbacGroup, name: `group-${n % 300}` },
          { kind: 'ServiceAccount', name: `deployer-${b}`, namespace },
        ],
      });
    }
  }
  const clusterRoleBindings: ClusterRoleBinding[] = Array.from({ length: clusterSize.clusterRoleBindings }, (_, i) => ({
    metadata: { name: `platform-${i}` },
    roleRef: { apiGroup: rbacGroup, kind: 'ClusterRole', name: `tenant-role-${i}` },
    subjects: [{ kind: 'Group', apiGroup: rbacGroup, name: `platform-group-${i}` }],
  }));
  return { roles, clusterRoles, roleBindings, clusterRoleBindings };
}
