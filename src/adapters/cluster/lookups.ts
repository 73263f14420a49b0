// The in-cluster Lookups: ServiceAccounts, Secrets (names and types only), RuntimeClasses and
// Namespaces (names and annotations) from informer caches (client-node ListWatch, kept alive by informer.ts and watchdog.ts), and live
// GETs through the typed APIs for what the plugins read when the cache misses. Readiness waits for
// every cache's first LIST, so a fresh replica does not turn every lookup into a live GET.
import { CoreV1Api, NodeV1Api, type KubeConfig, type V1ListMeta } from '@kubernetes/client-node';
import type { KubeObject } from '../../api/types.ts';
import { systemClock, systemRandom, type Clock, type Random } from '../../ports/clock.ts';
import { silentLogger, type Logger } from '../../ports/logger.ts';
import type { Lookups, ResourceLookup } from '../../ports/lookups.ts';
import type { InformerRecorder, LookupResource } from '../../ports/recorders.ts';
import { withTimeout } from '../../util/signals.ts';
import { Informer, type ListResult } from './informer.ts';
import { createKubeRequests } from './kube.ts';
import { liveRead } from './live-read.ts';
import { projectNamespace, projectRuntimeClass, projectSecret, projectServiceAccount } from './lookup-objects.ts';
import { runWatchdog } from './watchdog.ts';

export interface ClusterLookupsOptions {
  kubeConfig: KubeConfig;
  logger?: Logger;
  clock?: Clock;
  random?: Random;
  /** Relist every cache this often even when all looks well (default 30 min; 0: never). */
  resyncMs?: number;
  /**
   * Relist a cache that has seen no LIST, watch answer, event or bookmark for this long
   * (default 3 min). client-node re-watches a quiet resource every 30 s, so this must be longer.
   */
  stallTimeoutMs?: number;
  /** Restart delay after an informer error: doubles per failure up to maxMs (default 1 s .. 30 s). */
  backoff?: { initialMs?: number; maxMs?: number };
  /** Bound on one live GET when the caller's signal allows longer (default 10 s). */
  liveTimeoutMs?: number;
  /** LIST page size (default 500), so a large Secret list arrives in bounded pieces. */
  listPageSize?: number;
  /** Bound on one LIST page (default 60 s): a hung LIST fails and is retried with backoff. */
  listTimeoutMs?: number;
  /** Told every LIST, failure and restart of the informer caches (metrics). */
  recorder?: InformerRecorder;
  /**
   * Which caches to run (default: service accounts, secrets and runtime classes). The webhook starts
   * only those its enabled plugins read, so it needs no RBAC on — and holds nothing of — the others;
   * reading a disabled one throws.
   */
  resources?: readonly LookupResource[];
}

export interface ClusterLookups extends Lookups {
  /** Resolves when every cache has completed its first LIST; rejects if closed before. */
  ready(): Promise<void>;
  /** One line per cache that has not synced yet (empty when ready). */
  notReadyReasons(): string[];
  /** Stops informers and watchdog, aborts open watches, releases connections. */
  close(): Promise<void>;
}

export function createClusterLookups(options: ClusterLookupsOptions): ClusterLookups {
  const {
    kubeConfig,
    logger = silentLogger,
    clock = systemClock,
    random = systemRandom,
    resyncMs = 30 * 60_000,
    stallTimeoutMs = 3 * 60_000,
    liveTimeoutMs = 10_000,
    listPageSize = 500,
    listTimeoutMs = 60_000,
    recorder,
  } = options;
  const backoff = { initialMs: options.backoff?.initialMs ?? 1_000, maxMs: options.backoff?.maxMs ?? 30_000 };
  const requests = createKubeRequests(kubeConfig);
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const node = kubeConfig.makeApiClient(NodeV1Api);
  const server = kubeConfig.getCurrentCluster()?.server ?? '';
  const log = logger.child({ subsystem: 'cluster-lookups' });

  function informer<T extends KubeObject>(
    resource: LookupResource,
    path: string,
    listPage: (page: { limit: number; _continue?: string }, signal: AbortSignal) => Promise<{ items: unknown[]; metadata?: V1ListMeta }>,
    project: (object: unknown) => T,
  ): Informer<T> {
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
        listed: () => recorder?.informerList(resource),
        failed: () => recorder?.informerError(resource),
        restarted: (reason) => recorder?.informerRestart(resource, reason),
      },
    });
  }

  const serviceAccounts = informer(
    'serviceaccounts',
    '/api/v1/serviceaccounts',
    (page, signal) => core.listServiceAccountForAllNamespaces(page, requests.options(signal)),
    projectServiceAccount,
  );
  const secrets = informer('secrets', '/api/v1/secrets', (page, signal) => core.listSecretForAllNamespaces(page, requests.options(signal)), projectSecret);
  const runtimeClasses = informer(
    'runtimeclasses',
    '/apis/node.k8s.io/v1/runtimeclasses',
    (page, signal) => node.listRuntimeClass(page, requests.options(signal)),
    projectRuntimeClass,
  );
  const namespaces = informer('namespaces', '/api/v1/namespaces', (page, signal) => core.listNamespace(page, requests.options(signal)), projectNamespace);
  const enabled = new Set<LookupResource>(options.resources ?? ['serviceaccounts', 'secrets', 'runtimeclasses']);
  const informers = [serviceAccounts, secrets, runtimeClasses, namespaces].filter((cache) => enabled.has(cache.resource as LookupResource));

  function lookup<T extends KubeObject>(
    resource: LookupResource,
    cache: Informer<T>,
    read: (namespace: string, name: string, signal: AbortSignal) => Promise<unknown>,
    urlOf: (namespace: string, name: string) => string,
    project: (object: unknown) => T,
  ): ResourceLookup<T> {
    const ensureEnabled = () => {
      if (!enabled.has(resource)) throw new Error(`the ${resource} lookup is not enabled: no enabled plugin declared it`);
    };
    return {
      cached(namespace, name) {
        ensureEnabled();
        return cache.get(namespace, name);
      },
      async live(namespace, name, signal) {
        ensureEnabled();
        return liveRead({
          call: (bounded) => read(namespace, name, bounded),
          project,
          url: urlOf(namespace, name),
          signal,
          timeoutMs: liveTimeoutMs,
        });
      },
    };
  }

  const closing = new AbortController();
  for (const cache of informers) cache.start();
  const watchdog = runWatchdog({ informers, clock, stallTimeoutMs, resyncMs, signal: closing.signal });
  let closed: Promise<void> | undefined;

  return {
    serviceAccounts: lookup(
      'serviceaccounts',
      serviceAccounts,
      (namespace, name, signal) => core.readNamespacedServiceAccount({ namespace, name }, requests.options(signal)),
      (namespace, name) => `${server}/api/v1/namespaces/${namespace}/serviceaccounts/${name}`,
      projectServiceAccount,
    ),
    secrets: lookup(
      'secrets',
      secrets,
      (namespace, name, signal) => core.readNamespacedSecret({ namespace, name }, requests.options(signal)),
      (namespace, name) => `${server}/api/v1/namespaces/${namespace}/secrets/${name}`,
      projectSecret,
    ),
    runtimeClasses: lookup(
      'runtimeclasses',
      runtimeClasses,
      (_namespace, name, signal) => node.readRuntimeClass({ name }, requests.options(signal)),
      (_namespace, name) => `${server}/apis/node.k8s.io/v1/runtimeclasses/${name}`,
      projectRuntimeClass,
    ),
    namespaces: lookup(
      'namespaces',
      namespaces,
      (_namespace, name, signal) => core.readNamespace({ name }, requests.options(signal)),
      (_namespace, name) => `${server}/api/v1/namespaces/${name}`,
      projectNamespace,
    ),
    async ready() {
      await Promise.all(informers.map((cache) => cache.whenSynced()));
    },
    notReadyReasons() {
      return informers
        .filter((cache) => !cache.synced)
        .map((cache) => `${cache.resource} cache has not synced${cache.lastError === undefined ? '' : ` (last error: ${cache.lastError})`}`);
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

/**
 * Every page of a LIST, each projected as it arrives (a page of Secrets is dropped before the
 * next is fetched); the first page's resourceVersion is the snapshot the watch resumes from.
 */
export async function listAll<T>(
  listPage: (page: { limit: number; _continue?: string }) => Promise<{ items: unknown[]; metadata?: V1ListMeta }>,
  project: (object: unknown) => T,
  limit: number,
): Promise<ListResult<T>> {
  const items: T[] = [];
  let resourceVersion: string | undefined;
  let next: string | undefined;
  do {
    const page = await listPage(next === undefined ? { limit } : { limit, _continue: next });
    resourceVersion ??= page.metadata?.resourceVersion ?? '';
    for (const item of page.items) items.push(project(item));
    next = page.metadata?._continue || undefined;
  } while (next !== undefined);
  return { items, resourceVersion: resourceVersion ?? '' };
}
