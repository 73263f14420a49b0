// The four informer caches the RBAC mirror reads, as kube-apiserver's own RBAC authorizer reads its
// shared informers: Roles, ClusterRoles, RoleBindings and ClusterRoleBindings, listed in pages and
// watched (read-only list/watch across all namespaces), kept alive by informer.ts and the watchdog
// like the lookup caches. The mirror may answer only while every one of them follows the server.
import { RbacAuthorizationV1Api, type KubeConfig, type V1ListMeta } from '@kubernetes/client-node';
import type { ClusterRole, ClusterRoleBinding, Role, RoleBinding } from '../../api/rbac.ts';
import type { KubeObject } from '../../api/types.ts';
import { systemClock, systemRandom, type Clock, type Random } from '../../ports/clock.ts';
import { silentLogger, type Logger } from '../../ports/logger.ts';
import { withTimeout } from '../../util/signals.ts';
import { Informer } from './informer.ts';
import type { InformerRestartReason } from '../../ports/recorders.ts';
import { createKubeRequests } from './kube.ts';
import { listAll } from './lookups.ts';
import type { RbacResource } from './rbac-resources.ts';
import { projectClusterRole, projectClusterRoleBinding, projectRole, projectRoleBinding } from './rbac-objects.ts';
import { runWatchdog } from './watchdog.ts';

export type { RbacResource } from './rbac-resources.ts';

/** The informers' observations, per resource; the same shape as the lookup caches' informer recorder. */
export interface RbacInformerRecorder {
  informerList?(resource: RbacResource): void;
  informerError?(resource: RbacResource): void;
  informerRestart?(resource: RbacResource, reason: InformerRestartReason): void;
}

/** The cached objects by kind, as the embedded RBAC evaluator takes them. */
export interface RbacObjects {
  roles: Role[];
  clusterRoles: ClusterRole[];
  roleBindings: RoleBinding[];
  clusterRoleBindings: ClusterRoleBinding[];
}

export interface RbacInformersOptions {
  kubeConfig: KubeConfig;
  logger?: Logger;
  clock?: Clock;
  random?: Random;
  /** Relist every cache this often even when all looks well (default 30 min; 0: never). */
  resyncMs?: number;
  /** Relist a cache that has seen no LIST, watch answer, event or bookmark this long (default 3 min). */
  stallTimeoutMs?: number;
  /** Restart delay after an error: doubles per failure up to maxMs (default 1 s .. 30 s). */
  backoff?: { initialMs?: number; maxMs?: number };
  /** LIST page size (default 500): 10,000 RoleBindings arrive in bounded pieces. */
  listPageSize?: number;
  /** Bound on one LIST page (default 60 s). */
  listTimeoutMs?: number;
  recorder?: RbacInformerRecorder;
  /** Called whenever any cache changes (many times in a row during a LIST). */
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

type ListPage = (page: { limit: number; _continue?: string }, signal: AbortSignal) => Promise<{ items: unknown[]; metadata?: V1ListMeta }>;

export function createRbacInformers(options: RbacInformersOptions): RbacInformers {
  const {
    kubeConfig,
    logger = silentLogger,
    clock = systemClock,
    random = systemRandom,
    resyncMs = 30 * 60_000,
    stallTimeoutMs = 3 * 60_000,
    listPageSize = 500,
    listTimeoutMs = 60_000,
    recorder = {},
    onChange,
  } = options;
  const backoff = { initialMs: options.backoff?.initialMs ?? 1_000, maxMs: options.backoff?.maxMs ?? 30_000 };
  const requests = createKubeRequests(kubeConfig);
  const rbac = kubeConfig.makeApiClient(RbacAuthorizationV1Api);
  const log = logger.child({ subsystem: 'rbac-mirror' });

  function informer<T extends KubeObject>(resource: RbacResource, path: string, listPage: ListPage, project: (object: unknown) => T): Informer<T> {
    return new Informer<T>({
      resource,
      kubeConfig,
      path,
      list: (signal) => listAll((page) => withTimeout(signal, listTimeoutMs, (bounded) => listPage(page, bounded)), project, listPageSize),
      project,
      clock,
      random,
      logger: log,
      backoff,
      observer: {
        listed: () => recorder.informerList?.(resource),
        failed: () => recorder.informerError?.(resource),
        restarted: (reason) => recorder.informerRestart?.(resource, reason),
        ...(onChange ? { changed: onChange } : {}),
      },
    });
  }

  const base = '/apis/rbac.authorization.k8s.io/v1';
  const roles = informer<Role>('roles', `${base}/roles`, (page, signal) => rbac.listRoleForAllNamespaces(page, requests.options(signal)), projectRole);
  const clusterRoles = informer<ClusterRole>('clusterroles', `${base}/clusterroles`, (page, signal) => rbac.listClusterRole(page, requests.options(signal)), projectClusterRole);
  const roleBindings = informer<RoleBinding>(
    'rolebindings',
    `${base}/rolebindings`,
    (page, signal) => rbac.listRoleBindingForAllNamespaces(page, requests.options(signal)),
    projectRoleBinding,
  );
  const clusterRoleBindings = informer<ClusterRoleBinding>(
    'clusterrolebindings',
    `${base}/clusterrolebindings`,
    (page, signal) => rbac.listClusterRoleBinding(page, requests.options(signal)),
    projectClusterRoleBinding,
  );
  const informers = [roles, clusterRoles, roleBindings, clusterRoleBindings];

  const closing = new AbortController();
  for (const cache of informers) cache.start();
  const watchdog = runWatchdog({ informers, clock, stallTimeoutMs, resyncMs, signal: closing.signal });
  let closed: Promise<void> | undefined;

  return {
    objects: () => ({
      roles: [...roles.values()],
      clusterRoles: [...clusterRoles.values()],
      roleBindings: [...roleBindings.values()],
      clusterRoleBindings: [...clusterRoleBindings.values()],
    }),
    counts: () => ({ roles: roles.size, clusterroles: clusterRoles.size, rolebindings: roleBindings.size, clusterrolebindings: clusterRoleBindings.size }),
    get inSync() {
      return informers.every((cache) => cache.current);
    },
    async ready() {
      await Promise.all(informers.map((cache) => cache.whenSynced()));
    },
    notReadyReasons() {
      return informers
        .filter((cache) => !cache.synced)
        .map((cache) => `${cache.resource} cache (RBAC mirror) has not synced${cache.lastError === undefined ? '' : ` (last error: ${cache.lastError})`}`);
    },
    close() {
      closed ??= (async () => {
        closing.abort();
        await Promise.all([watchdog, ...informers.map((cache) => cache.close())]);
        await requests.close();
      })();
      return closed;
    },
  };
}
