// The local backend: a cluster-state file answers everything, with the embedded RBAC evaluator,
// static discovery and in-memory lookups. It serves `review`, `authorize` and `serve --cluster-state`.
import { loadClusterStateFile, type ClusterState } from '../adapters/local/cluster-state.ts';
import { createLocalLookups } from '../adapters/local/lookups.ts';
import { createRbacAuthorizer, type RbacAuthorizer } from '../adapters/local/rbac/index.ts';
import { createLocalRestMapper } from '../adapters/local/rest-mapper.ts';
import { systemClock, systemRandom } from '../ports/clock.ts';
import type { Ports } from '../ports/index.ts';
import type { Logger } from '../ports/logger.ts';
import type { Backend } from './backend.ts';

export function createLocalBackend(state: ClusterState, logger: Logger): Backend {
  const authorizer = createRbacAuthorizer(state);
  // Rules that grant more than they seem to (e.g. "/healthz*" also matches "/healthzzz").
  for (const warning of authorizer.lintWarnings()) logger.warn({ warning }, 'cluster state RBAC lint');
  const ports: Ports = {
    logger,
    clock: systemClock,
    random: systemRandom,
    authorizer,
    restMapper: createLocalRestMapper(state),
    lookups: createLocalLookups(state),
  };
  return {
    name: 'local',
    ports,
    grants: authorizer.grants,
    notReadyReasons: () => [],
    ready: async () => {},
    close: async () => {},
  };
}

export async function loadLocalBackend(path: string, logger: Logger): Promise<Backend> {
  return createLocalBackend(await loadClusterStateFile(path), logger);
}

/** The embedded RBAC evaluator, and the nearest grants it knows, over a cluster-state file's roles and bindings (`authorize`). */
export type LocalAuthorizer = RbacAuthorizer;

export async function loadLocalAuthorizer(path: string): Promise<LocalAuthorizer> {
  return createRbacAuthorizer(await loadClusterStateFile(path));
}
