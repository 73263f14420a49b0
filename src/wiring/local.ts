// The local backend: a cluster-state file answers everything, with the embedded RBAC evaluator,
// static discovery and in-memory lookups. It serves `review`, `authorize` and `serve --cluster-state`.
// Its feature gates are those of the release its built-in discovery describes (1.34: the
// VolumeAttributesClass gate GA and on, as in every release since), with --feature-gates on top.
import { kubeConfigImageReviewClients } from '../adapters/imagepolicy/kubeconfig-client.ts';
import { type ClusterState, loadClusterStateFile } from '../adapters/local/cluster-state.ts';
import { builtInDiscoveryVersion } from '../adapters/local/discovery-snapshot.ts';
import { createLocalLookups } from '../adapters/local/lookups.ts';
import { createRbacAuthorizer, type RbacAuthorizer } from '../adapters/local/rbac/index.ts';
import { createLocalRestMapper } from '../adapters/local/rest-mapper.ts';
import { systemClock, systemRandom } from '../ports/clock.ts';
import { type FeatureGateOverrides, featureGatesAt } from '../ports/feature-gates.ts';
import type { Ports } from '../ports/index.ts';
import type { Logger } from '../ports/logger.ts';
import type { Backend, LocalBackendConfig } from './backend.ts';

export function createLocalBackend(state: ClusterState, logger: Logger, featureGates: FeatureGateOverrides = {}): Backend {
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
    featureGates: featureGatesAt(builtInDiscoveryVersion, featureGates),
    // Offline too, ImagePolicyWebhook asks the backend its kubeconfig file names.
    imageReview: kubeConfigImageReviewClients,
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

export async function loadLocalBackend(
  config: LocalBackendConfig,
  logger: Logger,
  complete: (state: ClusterState) => ClusterState = (state) => state,
): Promise<Backend> {
  return createLocalBackend(complete(await loadClusterStateFile(config.clusterState)), logger, config.featureGates);
}

/** The embedded RBAC evaluator, and the nearest grants it knows, over a cluster-state file's roles and bindings (`authorize`). */
export type LocalAuthorizer = RbacAuthorizer;

export async function loadLocalAuthorizer(path: string): Promise<LocalAuthorizer> {
  return createRbacAuthorizer(await loadClusterStateFile(path));
}
