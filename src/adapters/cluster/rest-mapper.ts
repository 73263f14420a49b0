// The in-cluster REST mapper: kind → resource from kube-apiserver discovery, cached. A miss (a kind
// not seen yet, e.g. a freshly installed CRD) refreshes discovery at most once per interval, with
// at most one refresh in flight that concurrent misses share. Every wait is bounded by the
// caller's signal: inside admission a slow discovery endpoint must become a prompt "cannot find
// RESTMapping" denial, never a request that hangs until the API server gives up on the webhook.
// One group version failing (an aggregated API down) keeps its last known resources and does
// not disturb the others.
import type { KubeConfig } from '@kubernetes/client-node';
import type { RestMapper, RestMapping } from '../../ports/rest-mapper.ts';
import { systemClock, type Clock } from '../../ports/clock.ts';
import { silentLogger, type Logger } from '../../ports/logger.ts';
import type { APIResource } from '../local/cluster-state.ts';
import type { DiscoveredGroup } from '../discovery/documents.ts';
import { isNoMatchError } from '../discovery/errors.ts';
import { DiscoveryRestMapping } from '../discovery/rest-mapping.ts';
import { DiscoveryClient, groupVersionKey, type DiscoveryPass } from './discovery.ts';
import { createKubeRequests, describeKubeError, raceWithSignal } from './kube.ts';

export interface ClusterRestMapperOptions {
  kubeConfig: KubeConfig;
  /** Least time between two refreshes triggered by misses (default 30 s). */
  refreshIntervalMs?: number;
  /** Upper bound for one refresh, whatever the caller's deadline (default 10 s). */
  refreshTimeoutMs?: number;
  logger?: Logger;
  clock?: Clock;
}

export interface ClusterRestMapper extends RestMapper {
  /** Resolves once discovery has loaded (partially is enough); rejects if it could not load at all. */
  ready(signal?: AbortSignal): Promise<void>;
  /** Releases the connection pool. */
  close(): Promise<void>;
}

export function createClusterRestMapper(options: ClusterRestMapperOptions): ClusterRestMapper {
  const { kubeConfig, refreshIntervalMs = 30_000, refreshTimeoutMs = 10_000, logger = silentLogger, clock = systemClock } = options;
  const requests = createKubeRequests(kubeConfig);
  const client = new DiscoveryClient(kubeConfig, requests);
  const apisUrl = `${kubeConfig.getCurrentCluster()?.server ?? ''}/apis`;

  let mapping: DiscoveryRestMapping | undefined;
  /** Last good resource list per group version, kept across failed refreshes. */
  const known = new Map<string, APIResource[]>();
  let order: DiscoveredGroup[] = [];
  let lastRefreshAt: number | undefined;
  let lastError: string | undefined;
  let inFlight: Promise<void> | undefined;

  function startRefresh(signal: AbortSignal | undefined): Promise<void> {
    if (inFlight !== undefined) return inFlight;
    lastRefreshAt = clock.now();
    const deadline = AbortSignal.timeout(refreshTimeoutMs);
    const bounded = signal === undefined ? deadline : AbortSignal.any([signal, deadline]);
    inFlight = client
      .discover(bounded)
      .then(apply, (error: unknown) => {
        lastError = describeKubeError(error, 'Get', apisUrl);
        logger.warn({ err: lastError }, 'discovery failed');
      })
      .finally(() => {
        inFlight = undefined;
      });
    return inFlight;
  }

  function apply(pass: DiscoveryPass): void {
    const listsFailed = pass.listFailures.core !== undefined && pass.listFailures.groups !== undefined;
    if (listsFailed) {
      lastError = pass.listFailures.groups;
      logger.warn({ core: pass.listFailures.core, groups: pass.listFailures.groups }, 'discovery failed');
      return;
    }
    for (const [key, resources] of pass.resources) known.set(key, resources);
    if (pass.failures.size > 0 || pass.listFailures.core !== undefined || pass.listFailures.groups !== undefined) {
      logger.warn({ failed: Object.fromEntries(pass.failures), ...pass.listFailures }, 'discovery partially failed; keeping last known resources for the failed group versions');
    }
    order = mergeOrder(order, pass);
    const groups = order.map((g) => ({
      name: g.name,
      versions: g.versions.flatMap((v) => {
        const resources = known.get(groupVersionKey({ group: g.name, version: v.version }));
        return resources === undefined ? [] : [{ version: v.version, resources }];
      }),
    }));
    mapping = new DiscoveryRestMapping(groups);
    lastError = undefined;
  }

  /** Waits for a refresh, but never past the caller's deadline. */
  async function wait(refresh: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
    try {
      await raceWithSignal(refresh, signal);
    } catch (error) {
      throw new Error(describeKubeError(error, 'Get', apisUrl));
    }
  }

  function lookup(groupKind: { group: string; kind: string }, versions: readonly string[]): RestMapping[] | undefined {
    if (mapping === undefined) return undefined;
    try {
      return mapping.mappingsFor(groupKind, versions);
    } catch (error) {
      if (isNoMatchError(error)) return undefined;
      throw error;
    }
  }

  return {
    async mappingsFor(groupKind, versions, signal) {
      const hit = lookup(groupKind, versions);
      if (hit !== undefined) return hit;
      if (signal?.aborted) throw new Error(describeKubeError(signal.reason, 'Get', apisUrl));
      const due = lastRefreshAt === undefined || clock.now() - lastRefreshAt >= refreshIntervalMs;
      if (inFlight !== undefined || due) {
        await wait(startRefresh(signal), signal);
      }
      if (mapping === undefined) throw new Error(lastError ?? 'discovery has not loaded yet');
      // After a refresh a miss is final: the answer is upstream's NoKindMatchError.
      return mapping.mappingsFor(groupKind, versions);
    },

    async ready(signal) {
      if (mapping !== undefined) return;
      await wait(startRefresh(signal), signal);
      if (mapping === undefined) throw new Error(lastError ?? 'discovery has not loaded');
    },

    close: () => requests.close(),
  };
}

/**
 * The order groups and versions appear in: this pass's order, with groups and versions from
 * earlier passes that this pass could not list (its /api or /apis failed) kept in place after it.
 */
function mergeOrder(previous: readonly DiscoveredGroup[], pass: DiscoveryPass): DiscoveredGroup[] {
  const out: DiscoveredGroup[] = [];
  const add = (group: string, version: string) => {
    let entry = out.find((g) => g.name === group);
    if (entry === undefined) {
      entry = { name: group, versions: [] };
      out.push(entry);
    }
    if (!entry.versions.some((v) => v.version === version)) entry.versions.push({ version, resources: [] });
  };
  for (const gv of pass.groupVersions) add(gv.group, gv.version);
  for (const group of previous) {
    const unlisted = group.name === '' ? pass.listFailures.core !== undefined : pass.listFailures.groups !== undefined;
    if (unlisted) for (const v of group.versions) add(group.name, v.version);
  }
  return out;
}
