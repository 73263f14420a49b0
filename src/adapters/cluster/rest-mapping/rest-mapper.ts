// The in-cluster REST mapper: kind → resource from kube-apiserver discovery, cached. A miss (a kind
// not seen yet, e.g. a freshly installed CRD) refreshes discovery at most once per interval, with
// at most one refresh in flight that concurrent misses share. Every wait is bounded by the
// caller's signal: inside admission a slow discovery endpoint must become a prompt "cannot find
// RESTMapping" denial, never a request that hangs until the API server gives up on the webhook.
// One group version failing or hanging (an aggregated API down) keeps its last known resources
// and does not hold up lookups in other groups: each group is usable as soon as its lists arrive.
import type { KubeConfig } from '@kubernetes/client-node';
import { type Clock, systemClock } from '../../../ports/clock.ts';
import { type Logger, silentLogger } from '../../../ports/logger.ts';
import type { DiscoveryRecorder } from '../../../ports/recorders.ts';
import type { RestMapper, RestMapping } from '../../../ports/rest-mapper.ts';
import type { DiscoveredGroup } from '../../discovery/documents.ts';
import { isNoMatchError } from '../../discovery/errors.ts';
import { DiscoveryRestMapping } from '../../discovery/rest-mapping.ts';
import type { APIResource } from '../../local/cluster-state.ts';
import { createKubeRequests, describeKubeError, raceWithSignal } from '../client/kube.ts';
import { DiscoveryClient, type DiscoveryPass, type GroupVersionRef, groupVersionKey } from './discovery.ts';

export interface ClusterRestMapperOptions {
  kubeConfig: KubeConfig;
  /** Least time between two refreshes triggered by misses (default 30 s). */
  refreshIntervalMs?: number;
  /** Upper bound for one refresh, whatever the caller's deadline (default 10 s). */
  refreshTimeoutMs?: number;
  /** Pause between start-up attempts while discovery has not loaded at all (default 5 s). */
  loadRetryMs?: number;
  logger?: Logger;
  clock?: Clock;
  /** Told the outcome of every discovery pass (metrics). */
  recorder?: DiscoveryRecorder;
}

export interface ClusterRestMapper extends RestMapper {
  /** Resolves once discovery has loaded (partially is enough); rejects if it could not load at all. */
  ready(signal?: AbortSignal): Promise<void>;
  /**
   * Start-up: tries ready() until discovery loads or the mapper is closed, a pause between tries, so
   * a replica started while the API server is away becomes ready when it comes back.
   */
  load(): Promise<void>;
  /** Why the mapper cannot answer yet (load() has not finished: the last error); [] once it has. */
  notReadyReasons(): string[];
  /** Resolves when no refresh is in flight (a miss may return before its refresh has finished). */
  idle(): Promise<void>;
  /** Abandons any refresh in flight and releases the connection pool. */
  close(): Promise<void>;
}

/** A refresh in flight: the whole pass, and the moment one group's lists have all settled. */
interface Refresh {
  done: Promise<void>;
  groupSettled(group: string): Promise<void>;
}

export function createClusterRestMapper(options: ClusterRestMapperOptions): ClusterRestMapper {
  const {
    kubeConfig,
    refreshIntervalMs = 30_000,
    refreshTimeoutMs = 10_000,
    loadRetryMs = 5_000,
    logger = silentLogger,
    clock = systemClock,
  } = options;
  const requests = createKubeRequests(kubeConfig);
  const client = new DiscoveryClient(kubeConfig, requests);
  const apisUrl = `${kubeConfig.getCurrentCluster()?.server ?? ''}/apis`;

  let mapping: DiscoveryRestMapping | undefined;
  /** Last good resource list per group version, kept across failed refreshes. */
  const known = new Map<string, APIResource[]>();
  let order: DiscoveredGroup[] = [];
  /** /api and /apis failures of the latest pass: a miss in an unlisted half reports them. */
  let listFailures: DiscoveryPass['listFailures'] = {};
  let lastRefreshAt: number | undefined;
  let lastError: string | undefined;
  let inFlight: Refresh | undefined;
  /** Whether load() has seen discovery's first pass through, and why its last attempt failed. */
  let loaded = false;
  let loadError: string | undefined;
  const closing = new AbortController();

  function rebuild(): void {
    const groups = order.map((g) => ({
      name: g.name,
      versions: g.versions.flatMap((v) => {
        const resources = known.get(groupVersionKey({ group: g.name, version: v.version }));
        return resources === undefined ? [] : [{ version: v.version, resources }];
      }),
    }));
    if (groups.some((g) => g.versions.length > 0)) mapping = new DiscoveryRestMapping(groups);
  }

  /**
   * A refresh is shared by every caller that misses meanwhile, so it is bounded only by its own
   * timeout and by close(): one caller giving up (its client gone, its deadline passed) must not
   * cancel the refresh for the others; each caller's wait is bounded by its own signal instead.
   */
  function startRefresh(): Refresh {
    if (inFlight !== undefined) return inFlight;
    lastRefreshAt = clock.now();
    const started = performance.now();
    const completed = (result: 'success' | 'partial' | 'error') =>
      options.recorder?.refreshCompleted({ result, durationSeconds: (performance.now() - started) / 1000 });
    const deadline = AbortSignal.timeout(refreshTimeoutMs);
    const bounded = AbortSignal.any([deadline, closing.signal]);

    const pendingByGroup = new Map<string, { remaining: number; settled: Promise<void>; resolve: () => void }>();
    const pending = (group: string) => {
      let entry = pendingByGroup.get(group);
      if (entry === undefined) {
        let resolve = () => {};
        const settled = new Promise<void>((r) => (resolve = r));
        entry = { remaining: 0, settled, resolve };
        pendingByGroup.set(group, entry);
      }
      return entry;
    };
    let markListed = () => {};
    const listed = new Promise<void>((r) => (markListed = r));

    const done = client
      .discover(bounded, {
        listed(groupVersions, failures) {
          listFailures = failures;
          order = mergeOrder(order, groupVersions, failures);
          for (const gv of groupVersions) pending(gv.group).remaining += 1;
          rebuild();
          markListed();
        },
        settled(gv: GroupVersionRef, resources) {
          if (resources !== undefined) known.set(groupVersionKey(gv), resources);
          rebuild();
          const entry = pending(gv.group);
          entry.remaining -= 1;
          if (entry.remaining === 0) entry.resolve();
        },
      })
      .then(
        (pass) => completed(report(pass)),
        (error: unknown) => {
          completed('error');
          lastError = describeKubeError(error, 'Get', apisUrl);
          logger.warn({ err: lastError }, 'discovery failed');
        },
      )
      .finally(() => {
        markListed();
        inFlight = undefined;
      });

    inFlight = {
      done,
      async groupSettled(group) {
        await Promise.race([listed, done]);
        const entry = pendingByGroup.get(group);
        if (entry !== undefined && entry.remaining > 0) await Promise.race([entry.settled, done]);
      },
    };
    return inFlight;
  }

  function report(pass: DiscoveryPass): 'success' | 'partial' | 'error' {
    const { core, groups } = pass.listFailures;
    if (core !== undefined && groups !== undefined) {
      lastError = groups;
      logger.warn({ core, groups }, 'discovery failed');
      return 'error';
    }
    lastError = undefined;
    if (pass.failures.size > 0 || core !== undefined || groups !== undefined) {
      logger.warn(
        { failed: Object.fromEntries(pass.failures), core, groups },
        'discovery partially failed; keeping last known resources for what failed',
      );
      return 'partial';
    }
    return 'success';
  }

  async function ready(signal?: AbortSignal): Promise<void> {
    if (mapping !== undefined) return;
    await wait(startRefresh().done, signal);
    if (mapping === undefined) throw new Error(lastError ?? 'discovery has not loaded');
  }

  /** Waits for a refresh, but never past the caller's deadline. */
  async function wait(work: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
    try {
      await raceWithSignal(work, signal);
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

  /** A kind discovery did not know: refresh (at most once per interval), then look again. */
  async function mappingsAfterRefresh(
    groupKind: { group: string; kind: string },
    versions: readonly string[],
    signal: AbortSignal | undefined,
  ): Promise<RestMapping[]> {
    if (signal?.aborted) throw new Error(describeKubeError(signal.reason, 'Get', apisUrl));
    const due = lastRefreshAt === undefined || clock.now() - lastRefreshAt >= refreshIntervalMs;
    if (inFlight !== undefined || due) {
      try {
        await wait(startRefresh().groupSettled(groupKind.group), signal);
      } catch (error) {
        // The deadline passed; whatever arrived meanwhile still counts.
        const late = lookup(groupKind, versions);
        if (late !== undefined) return late;
        throw error;
      }
    }
    // Like client-go: a group the server could not even list reports that failure; a group
    // version that failed on its own, or a kind nobody serves, is upstream's NoKindMatchError.
    const unlisted = groupKind.group === '' ? listFailures.core : listFailures.groups;
    if (mapping === undefined) throw new Error(unlisted ?? lastError ?? 'discovery has not loaded yet');
    const found = lookup(groupKind, versions);
    if (found !== undefined) return found;
    if (unlisted !== undefined) throw new Error(unlisted);
    return mapping.mappingsFor(groupKind, versions);
  }

  return {
    // A known kind is answered from what discovery already holds; only an unknown one refreshes.
    mappingsFor: async (groupKind, versions, signal) => lookup(groupKind, versions) ?? mappingsAfterRefresh(groupKind, versions, signal),

    ready,

    async load() {
      while (!closing.signal.aborted) {
        try {
          await ready();
          loaded = true;
          return;
        } catch (error) {
          loadError = (error as Error).message;
          logger.warn({ err: loadError }, 'discovery did not load; retrying');
          await clock.sleep(loadRetryMs, closing.signal).catch(() => {});
        }
      }
    },

    notReadyReasons: () => (loaded ? [] : [`discovery has not loaded${loadError ? ` (last error: ${loadError})` : ''}`]),

    idle: async () => {
      await inFlight?.done;
    },

    close: async () => {
      closing.abort(new Error('REST mapper closed'));
      await inFlight?.done;
      await requests.close();
    },
  };
}

/**
 * The order groups and versions appear in: this pass's order, with groups and versions from
 * earlier passes that this pass could not list (its /api or /apis failed) kept after it.
 */
function mergeOrder(
  previous: readonly DiscoveredGroup[],
  groupVersions: readonly GroupVersionRef[],
  failures: DiscoveryPass['listFailures'],
): DiscoveredGroup[] {
  const out: DiscoveredGroup[] = [];
  const add = (group: string, version: string) => {
    let entry = out.find((g) => g.name === group);
    if (entry === undefined) {
      entry = { name: group, versions: [] };
      out.push(entry);
    }
    if (!entry.versions.some((v) => v.version === version)) entry.versions.push({ version, resources: [] });
  };
  for (const gv of groupVersions) add(gv.group, gv.version);
  for (const group of previous) {
    const unlisted = group.name === '' ? failures.core !== undefined : failures.groups !== undefined;
    if (unlisted) for (const v of group.versions) add(group.name, v.version);
  }
  return out;
}
