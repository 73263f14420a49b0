// Chooses and builds the backend from the config: the local cluster-state file when given, else
// the cluster through @kubernetes/client-node. The cluster side is imported only when used:
// client-node alone adds about 45 MiB of resident memory as the image runs it (bundled), 85 MiB
// loaded from node_modules.
import type { PluginDefinition } from './admission/plugin.ts';
import type { ServeConfig } from './config/serve-config.ts';
import type { AuthorizationRecorder, DiscoveryRecorder, InformerRecorder } from './ports/recorders.ts';
import type { Logger } from './ports/logger.ts';
import { loadLocalBackend, type Backend } from './wiring.ts';

/** What the cluster adapters report to (metrics); each optional. */
export interface ClusterObservers {
  authorization?: AuthorizationRecorder;
  discovery?: DiscoveryRecorder;
  informers?: InformerRecorder;
}

export type BackendConfig = Pick<ServeConfig, 'clusterState' | 'kubeconfig' | 'sarAllowedTtlMs' | 'sarDeniedTtlMs' | 'discoveryRefreshIntervalMs' | 'requestTimeoutMs'> &
  Partial<Pick<ServeConfig, 'maxSubjectAccessReviewsPerRequest'>>;

export async function createBackend(
  config: BackendConfig,
  logger: Logger,
  enabled: readonly PluginDefinition[],
  observers: ClusterObservers = {},
): Promise<Backend> {
  if (config.clusterState !== undefined) return loadLocalBackend(config.clusterState, logger);
  const cluster = await import('./cluster-backend.ts');
  return cluster.createClusterBackend(cluster.loadKubeConfig(config.kubeconfig), config, logger, enabled, observers);
}

