// What a backend gives the chain: the ports its adapters fill in, whether its caches are ready, and
// how to stop it. The local cluster-state file and the cluster are the two (local.ts, cluster.ts).
import type { ServeConfig } from '../config/serve-config.ts';
import type { Ports } from '../ports/index.ts';
import type { AuthorizationRecorder, DiscoveryRecorder, InformerRecorder } from '../ports/recorders.ts';

export interface Backend {
  readonly name: 'local' | 'cluster';
  readonly ports: Ports;
  /** Reasons the backend cannot serve yet (caches syncing); [] when ready. */
  notReadyReasons(): string[];
  /** Resolves once caches have synced for the first time. */
  ready(): Promise<void>;
  close(): Promise<void>;
}

/** What the cluster adapters report to (metrics); each optional. */
export interface ClusterObservers {
  authorization?: AuthorizationRecorder;
  discovery?: DiscoveryRecorder;
  informers?: InformerRecorder;
}

export type BackendConfig = Pick<ServeConfig, 'clusterState' | 'kubeconfig' | 'sarAllowedTtlMs' | 'sarDeniedTtlMs' | 'discoveryRefreshIntervalMs' | 'requestTimeoutMs'> &
  Partial<Pick<ServeConfig, 'maxSubjectAccessReviewsPerRequest'>>;
