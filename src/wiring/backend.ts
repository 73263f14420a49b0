// What a backend gives the chain: the ports its adapters fill in, whether its caches are ready, and
// how to stop it. The local cluster-state file and the cluster are the two (local.ts, cluster.ts).

import type { RbacMirrorRecorder } from '../adapters/cluster/rbac-mirror/rbac-mirror-authorizer.ts';
import type { ServeConfig } from '../config/serve-config.ts';
import type { FeatureGateOverrides } from '../ports/feature-gates.ts';
import type { GrantFinder } from '../ports/grants.ts';
import type { Ports } from '../ports/index.ts';
import type { AuthorizationRecorder, DiscoveryRecorder, InformerRecorder } from '../ports/recorders.ts';

export interface Backend {
  readonly name: 'local' | 'cluster';
  readonly ports: Ports;
  /** The requester's nearest existing grants, named when a denial is explained (where RBAC objects are held: the local backend, the RBAC mirror). */
  readonly grants?: GrantFinder;
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
  /** With --authorizer=rbac-mirror. */
  rbacMirror?: RbacMirrorRecorder;
}

/** The local backend: a cluster-state file answers everything; only --feature-gates is read besides it. */
export interface LocalBackendConfig {
  readonly kind: 'local';
  /** The cluster-state file. */
  readonly clusterState: string;
  readonly featureGates?: FeatureGateOverrides;
}

/** The cluster backend: what its SubjectAccessReviews, discovery, feature gates and informers are built with. */
export type ClusterBackendConfig = { readonly kind: 'cluster' } & Readonly<
  Pick<ServeConfig, 'kubeconfig' | 'sarAllowedTtlMs' | 'sarDeniedTtlMs' | 'discoveryRefreshIntervalMs' | 'requestTimeoutMs'> &
    Partial<Pick<ServeConfig, 'maxSubjectAccessReviewsPerRequest' | 'authorizer' | 'featureGates'>>
>;

/** Which backend answers, and its settings. */
export type BackendConfig = LocalBackendConfig | ClusterBackendConfig;

/** `serve`'s backend: the local one when --cluster-state is given (whatever else is), else the cluster. */
export function serveBackendConfig(config: ServeConfig): BackendConfig {
  if (config.clusterState !== undefined) return { kind: 'local', clusterState: config.clusterState, featureGates: config.featureGates };
  return {
    kind: 'cluster',
    kubeconfig: config.kubeconfig,
    sarAllowedTtlMs: config.sarAllowedTtlMs,
    sarDeniedTtlMs: config.sarDeniedTtlMs,
    discoveryRefreshIntervalMs: config.discoveryRefreshIntervalMs,
    requestTimeoutMs: config.requestTimeoutMs,
    maxSubjectAccessReviewsPerRequest: config.maxSubjectAccessReviewsPerRequest,
    ...(config.authorizer !== undefined ? { authorizer: config.authorizer } : {}),
    featureGates: config.featureGates,
  };
}
