// Chooses the backend from the config: the local cluster-state file when given, else the cluster.
import type { ServeConfig } from './config/serve-config.ts';
import type { Logger } from './ports/logger.ts';
import { loadLocalBackend, type Backend } from './wiring.ts';

export async function createBackend(config: Pick<ServeConfig, 'clusterState' | 'kubeconfig' | 'sarAllowedTtlMs' | 'sarDeniedTtlMs' | 'discoveryRefreshIntervalMs'>, logger: Logger): Promise<Backend> {
  if (config.clusterState !== undefined) return loadLocalBackend(config.clusterState, logger);
  throw new Error('the cluster backend is not wired yet: pass --cluster-state FILE');
}
