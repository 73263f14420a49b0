// The cluster backend: SubjectAccessReview, discovery and informer lookups through
// @kubernetes/client-node, started only for what the enabled plugins need, so the webhook needs no
// RBAC (and holds no cache) for the rest.
// Loaded only when used (wiring/index.ts imports it on demand).
import { KubeConfig } from '@kubernetes/client-node';
import { createClusterAuthorizer } from '../adapters/cluster/authorization/authorizer.ts';
import { createClusterFeatureGates } from '../adapters/cluster/feature-gates.ts';
import { createClusterLookups } from '../adapters/cluster/lookups/lookups.ts';
import { createRbacMirrorAuthorizer } from '../adapters/cluster/rbac-mirror/rbac-mirror-authorizer.ts';
import { createClusterRestMapper } from '../adapters/cluster/rest-mapping/rest-mapper.ts';
import { kubeConfigImageReviewClients } from '../adapters/imagepolicy/kubeconfig-client.ts';
import type { PluginDefinition } from '../admission/plugin.ts';
import { systemClock, systemRandom } from '../ports/clock.ts';
import { featureGatesFromOverrides } from '../ports/feature-gates.ts';
import type { GrantFinder } from '../ports/grants.ts';
import type { Lookups, Ports } from '../ports/index.ts';
import type { Logger } from '../ports/logger.ts';
import type { LookupResource } from '../ports/recorders.ts';
import type { Backend, ClusterBackendConfig, ClusterObservers } from './backend.ts';

/** --kubeconfig when given; otherwise KUBECONFIG, ~/.kube/config, then the in-cluster service account. */
export function loadKubeConfig(path: string | undefined): KubeConfig {
  const kubeConfig = new KubeConfig();
  try {
    if (path !== undefined) kubeConfig.loadFromFile(path);
    else kubeConfig.loadFromDefault();
  } catch (error) {
    throw new Error(`cannot load kubeconfig${path ? ` ${path}` : ''}: ${(error as Error).message}`);
  }
  if (!kubeConfig.getCurrentCluster()) {
    throw new Error(
      'no cluster to talk to: run in a pod, set KUBECONFIG, pass --kubeconfig, or use --cluster-state FILE for the local backend',
    );
  }
  return kubeConfig;
}

const lookupResources: Record<keyof Lookups, LookupResource> = {
  serviceAccounts: 'serviceaccounts',
  secrets: 'secrets',
  runtimeClasses: 'runtimeclasses',
  namespaces: 'namespaces',
  nodes: 'nodes',
};

export function createClusterBackend(
  kubeConfig: KubeConfig,
  config: ClusterBackendConfig,
  logger: Logger,
  enabled: readonly PluginDefinition[],
  observers: ClusterObservers = {},
): Backend {
  const needs = new Set(enabled.flatMap((p) => p.needs));
  const lookupsNeeded = [...new Set(enabled.flatMap((p) => p.lookups ?? []))].map((l) => lookupResources[l]);
  const ports: Ports = { logger, clock: systemClock, random: systemRandom, imageReview: kubeConfigImageReviewClients };
  const closers: Array<() => Promise<void>> = [];
  const waits: Array<Promise<void>> = [];
  const reasons: Array<() => string[]> = [];
  let grants: GrantFinder | undefined;

  if (needs.has('authorizer')) {
    const authorizer = createClusterAuthorizer({
      kubeConfig,
      allowedTtlMs: config.sarAllowedTtlMs,
      deniedTtlMs: config.sarDeniedTtlMs,
      timeoutMs: config.requestTimeoutMs,
      ...(config.maxSubjectAccessReviewsPerRequest !== undefined ? { maxReviewsPerRequest: config.maxSubjectAccessReviewsPerRequest } : {}),
      logger: logger.child({ subsystem: 'subjectaccessreview' }),
      ...(observers.authorization ? { recorder: observers.authorization } : {}),
    });
    ports.authorizer = authorizer;
    closers.push(() => authorizer.close());
    if (config.authorizer === 'rbac-mirror') {
      const mirrored = createRbacMirrorAuthorizer({
        kubeConfig,
        fallback: authorizer,
        logger,
        ...(observers.rbacMirror ? { recorder: observers.rbacMirror } : {}),
      });
      ports.authorizer = mirrored;
      grants = mirrored.grants;
      waits.push(mirrored.ready());
      reasons.push(() => mirrored.notReadyReasons());
      closers.push(() => mirrored.close());
    }
  }
  if (needs.has('restMapper')) {
    const restMapper = createClusterRestMapper({
      kubeConfig,
      refreshIntervalMs: config.discoveryRefreshIntervalMs,
      logger: logger.child({ subsystem: 'discovery' }),
      ...(observers.discovery ? { recorder: observers.discovery } : {}),
    });
    ports.restMapper = restMapper;
    waits.push(restMapper.load());
    reasons.push(() => restMapper.notReadyReasons());
    closers.push(() => restMapper.close());
  }
  if (needs.has('featureGates')) {
    const overrides = config.featureGates ?? {};
    // When --feature-gates names every gate, the version would change nothing: it is never read.
    const overridden = featureGatesFromOverrides(overrides);
    if (overridden !== undefined) {
      ports.featureGates = overridden;
    } else {
      const featureGates = createClusterFeatureGates({ kubeConfig, overrides, logger: logger.child({ subsystem: 'feature-gates' }) });
      ports.featureGates = featureGates;
      waits.push(featureGates.load());
      reasons.push(() => featureGates.notReadyReasons());
      closers.push(() => featureGates.close());
    }
  }
  if (needs.has('lookups') || lookupsNeeded.length > 0) {
    const lookups = createClusterLookups({
      kubeConfig,
      logger,
      resources: lookupsNeeded,
      ...(observers.informers ? { recorder: observers.informers } : {}),
    });
    ports.lookups = lookups;
    waits.push(lookups.ready());
    reasons.push(() => lookups.notReadyReasons());
    closers.push(() => lookups.close());
  }

  return {
    name: 'cluster',
    ports,
    ...(grants ? { grants } : {}),
    notReadyReasons: () => reasons.flatMap((r) => r()),
    ready: async () => {
      await Promise.all(waits);
    },
    close: async () => {
      await Promise.all(closers.map((c) => c()));
    },
  };
}
