// The in-cluster Lookups: ServiceAccounts, Secrets (names and types only), RuntimeClasses,
// Namespaces (names and annotations) and Nodes (names and labels) from one set of informer caches
// (../client/informer-set.ts), and live GETs through the typed APIs for what the plugins read when
// the cache misses. Readiness waits for every cache's first LIST, so a fresh replica does not turn
// every lookup into a live GET; a plugin that reads only the cache asks each request (synced).
import { type ConfigurationOptions, CoreV1Api, type KubeConfig, NodeV1Api, type ObservableMiddleware } from '@kubernetes/client-node';
import type { KubeObject } from '../../../api/types.ts';
import { type Logger, silentLogger } from '../../../ports/logger.ts';
import type { Lookups, ResourceLookup } from '../../../ports/lookups.ts';
import type { InformerRecorder, LookupResource } from '../../../ports/recorders.ts';
import { raceWithSignal, withTimeout } from '../../../util/signals.ts';
import type { Informer } from '../client/informer.ts';
import { createInformerSet, type InformerSettings } from '../client/informer-set.ts';
import { liveRead } from '../client/live-read.ts';
import { projectNamespace, projectNode, projectRuntimeClass, projectSecret, projectServiceAccount } from './lookup-objects.ts';

export interface ClusterLookupsOptions extends InformerSettings {
  kubeConfig: KubeConfig;
  logger?: Logger;
  /** Bound on one live GET when the caller's signal allows longer (default 10 s). */
  liveTimeoutMs?: number;
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
  const { kubeConfig, logger = silentLogger, liveTimeoutMs = 10_000 } = options;
  const set = createInformerSet<LookupResource>({ ...options, logger: logger.child({ subsystem: 'cluster-lookups' }) });
  const { requests } = set;
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const node = kubeConfig.makeApiClient(NodeV1Api);
  const server = kubeConfig.getCurrentCluster()?.server ?? '';

  const serviceAccounts = set.informer(
    'serviceaccounts',
    '/api/v1/serviceaccounts',
    (page, signal) => core.listServiceAccountForAllNamespaces(page, requests.options(signal)),
    projectServiceAccount,
  );
  const secrets = set.informer(
    'secrets',
    '/api/v1/secrets',
    (page, signal) => core.listSecretForAllNamespaces(page, requests.options(signal)),
    projectSecret,
  );
  const runtimeClasses = set.informer(
    'runtimeclasses',
    '/apis/node.k8s.io/v1/runtimeclasses',
    (page, signal) => node.listRuntimeClass(page, requests.options(signal)),
    projectRuntimeClass,
  );
  const namespaces = set.informer(
    'namespaces',
    '/api/v1/namespaces',
    (page, signal) => core.listNamespace(page, requests.options(signal)),
    projectNamespace,
  );
  const nodes = set.informer('nodes', '/api/v1/nodes', (page, signal) => core.listNode(page, requests.options(signal)), projectNode);
  const enabled = new Set<LookupResource>(options.resources ?? ['serviceaccounts', 'secrets', 'runtimeclasses']);
  const informers = [serviceAccounts, secrets, runtimeClasses, namespaces, nodes].filter((cache) =>
    enabled.has(cache.resource as LookupResource),
  );

  function lookup<T extends KubeObject>(
    resource: LookupResource,
    cache: Informer<T>,
    read: (namespace: string, name: string, callOptions: ConfigurationOptions<ObservableMiddleware>) => Promise<unknown>,
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
          requests,
          timeoutMs: liveTimeoutMs,
          call: (callOptions) => read(namespace, name, callOptions),
          project,
          url: urlOf(namespace, name),
          signal,
        });
      },
      async synced(waitMs, signal) {
        ensureEnabled();
        if (cache.synced) return true;
        // False at waitMs, when the signal aborts, or when the informer closes before its first LIST.
        return withTimeout(signal, waitMs, (bounded) => raceWithSignal(cache.whenSynced(), bounded)).then(
          () => true,
          () => false,
        );
      },
    };
  }

  set.start(informers);

  return {
    serviceAccounts: lookup(
      'serviceaccounts',
      serviceAccounts,
      (namespace, name, callOptions) => core.readNamespacedServiceAccount({ namespace, name }, callOptions),
      (namespace, name) => `${server}/api/v1/namespaces/${namespace}/serviceaccounts/${name}`,
      projectServiceAccount,
    ),
    secrets: lookup(
      'secrets',
      secrets,
      (namespace, name, callOptions) => core.readNamespacedSecret({ namespace, name }, callOptions),
      (namespace, name) => `${server}/api/v1/namespaces/${namespace}/secrets/${name}`,
      projectSecret,
    ),
    runtimeClasses: lookup(
      'runtimeclasses',
      runtimeClasses,
      (_namespace, name, callOptions) => node.readRuntimeClass({ name }, callOptions),
      (_namespace, name) => `${server}/apis/node.k8s.io/v1/runtimeclasses/${name}`,
      projectRuntimeClass,
    ),
    namespaces: lookup(
      'namespaces',
      namespaces,
      (_namespace, name, callOptions) => core.readNamespace({ name }, callOptions),
      (_namespace, name) => `${server}/api/v1/namespaces/${name}`,
      projectNamespace,
    ),
    nodes: lookup(
      'nodes',
      nodes,
      (_namespace, name, callOptions) => core.readNode({ name }, callOptions),
      (_namespace, name) => `${server}/api/v1/nodes/${name}`,
      projectNode,
    ),
    ready: () => set.ready(),
    notReadyReasons: () => set.notReadyReasons(),
    close: () => set.close(),
  };
}
