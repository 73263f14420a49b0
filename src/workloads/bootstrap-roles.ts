// The part of kube-apiserver's bootstrap RBAC policy (bootstrappolicy/controller_policy.go) that
// admission consults for what controllers create: each pod-creating controller may update its own
// kind's finalizers, which OwnerReferencesPermissionEnforcement requires of the blockOwnerDeletion
// reference it sets. Every real API server holds these roles; a cluster-state file usually does not,
// so offline reviews add the ones it lacks.
import type { KubeObject } from '../api/types.ts';
import { type ControllerName, Controllers } from './controllers.ts';

const finalizerRules: Record<ControllerName, Array<{ apiGroups: string[]; resources: string[] }>> = {
  [Controllers.cronJob]: [{ apiGroups: ['batch'], resources: ['cronjobs/finalizers'] }],
  [Controllers.daemonSet]: [{ apiGroups: ['extensions', 'apps'], resources: ['daemonsets/finalizers'] }],
  [Controllers.deployment]: [{ apiGroups: ['extensions', 'apps'], resources: ['deployments/finalizers'] }],
  [Controllers.job]: [{ apiGroups: ['batch'], resources: ['jobs/finalizers'] }],
  [Controllers.replicaSet]: [{ apiGroups: ['apps', 'extensions'], resources: ['replicasets/finalizers'] }],
  [Controllers.replicationController]: [{ apiGroups: [''], resources: ['replicationcontrollers/finalizers'] }],
  [Controllers.statefulSet]: [
    { apiGroups: ['apps'], resources: ['statefulsets/finalizers'] },
    { apiGroups: [''], resources: ['pods/finalizers'] },
  ],
};

/** system:controller:<name> ClusterRoles and their ClusterRoleBindings to kube-system/<name>. */
export function controllerBootstrapRoles(): { clusterRoles: KubeObject[]; clusterRoleBindings: KubeObject[] } {
  const clusterRoles: KubeObject[] = [];
  const clusterRoleBindings: KubeObject[] = [];
  for (const [controller, rules] of Object.entries(finalizerRules)) {
    const name = `system:controller:${controller}`;
    const metadata = { name, labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults' } };
    clusterRoles.push({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata,
      rules: rules.map((r) => ({ verbs: ['update'], ...r })),
    });
    clusterRoleBindings.push({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata,
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
      subjects: [{ kind: 'ServiceAccount', name: controller, namespace: 'kube-system' }],
    });
  }
  return { clusterRoles, clusterRoleBindings };
}
