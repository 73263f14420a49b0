// The four informer caches the RBAC mirror reads, as kube-apiserver's own RBAC authorizer reads its
// shared informers: Roles, ClusterRoles, RoleBindings and ClusterRoleBindings, listed in pages and
// watched (read-only list/watch across all namespaces), run as one informer set (../client/informer-set.ts)
// like the lookup caches. The mirror may answer only while every one of them follows the server.
import { type KubeConfig, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import type { ClusterRole, ClusterRoleBinding, Role, RoleBinding } from '../../../api/rbac.ts';
import { type Logger, silentLogger } from '../../../ports/logger.ts';
import { createInformerSet, type InformerSetRecorder, type InformerSettings } from '../client/informer-set.ts';
import { projectClusterRole, projectClusterRoleBinding, projectRole, projectRoleBinding } from './rbac-objects.ts';
import type { RbacResource } from './rbac-resources.ts';

export type { RbacResource } from './rbac-resources.ts';

/** The informers' observations, per resource; the same shape as the lookup caches' informer recorder. */
export type RbacInformerRecorder = InformerSetRecorder<RbacResource>;

/** The cached objects by kind, as the embedded RBAC evaluator takes them. */
export interface RbacObjects {
  roles: Role[];
  clusterRoles: ClusterRole[];
  roleBindings: RoleBinding[];
  clusterRoleBindings: ClusterRoleBinding[];
}

export interface RbacInformersOptions extends InformerSettings {
  kubeConfig: KubeConfig;
  logger?: Logger;
  recorder?: RbacInformerRecorder;
  /** Called whenever any cache changes: once per LIST, once per watched event that changes it. */
  onChange?(): void;
}

export interface RbacInformers {
  /** Every cached object, by kind: the informers' own projected objects, never to be changed. */
  objects(): RbacObjects;
  counts(): Record<RbacResource, number>;
  /** Every cache has listed, and none has failed, stalled or restarted since. */
  readonly inSync: boolean;
  /** Resolves when every cache has completed its first LIST; rejects if closed before. */
  ready(): Promise<void>;
  /** One line per cache that has not synced yet (empty when ready). */
  notReadyReasons(): string[];
  close(): Promise<void>;
}

export function createRbacInformers(options: RbacInformersOptions): RbacInformers {
  const { kubeConfig, logger = silentLogger } = options;
  const set = createInformerSet<RbacResource>({ ...options, logger: logger.child({ subsystem: 'rbac-mirror' }), label: ' (RBAC mirror)' });
  const { requests } = set;
  const rbac = kubeConfig.makeApiClient(RbacAuthorizationV1Api);

  const base = '/apis/rbac.authorization.k8s.io/v1';
  const roles = set.informer<Role>(
    'roles',
    `${base}/roles`,
    (page, signal) => rbac.listRoleForAllNamespaces(page, requests.options(signal)),
    projectRole,
  );
  const clusterRoles = set.informer<ClusterRole>(
    'clusterroles',
    `${base}/clusterroles`,
    (page, signal) => rbac.listClusterRole(page, requests.options(signal)),
    projectClusterRole,
  );
  const roleBindings = set.informer<RoleBinding>(
    'rolebindings',
    `${base}/rolebindings`,
    (page, signal) => rbac.listRoleBindingForAllNamespaces(page, requests.options(signal)),
    projectRoleBinding,
  );
  const clusterRoleBindings = set.informer<ClusterRoleBinding>(
    'clusterrolebindings',
    `${base}/clusterrolebindings`,
    (page, signal) => rbac.listClusterRoleBinding(page, requests.options(signal)),
    projectClusterRoleBinding,
  );
  const informers = [roles, clusterRoles, roleBindings, clusterRoleBindings];

  set.start(informers);

  return {
    objects: () => ({
      roles: [...roles.values()],
      clusterRoles: [...clusterRoles.values()],
      roleBindings: [...roleBindings.values()],
      clusterRoleBindings: [...clusterRoleBindings.values()],
    }),
    counts: () => ({
      roles: roles.size,
      clusterroles: clusterRoles.size,
      rolebindings: roleBindings.size,
      clusterrolebindings: clusterRoleBindings.size,
    }),
    get inSync() {
      return set.inSync;
    },
    ready: () => set.ready(),
    notReadyReasons: () => set.notReadyReasons(),
    close: () => set.close(),
  };
}
