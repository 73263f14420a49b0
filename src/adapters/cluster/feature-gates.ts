// The cluster's feature gates from its version: GET /version at start-up, tried again until it
// answers (readiness waits for it), then re-read now and then so a control-plane upgrade is seen
// without a restart; a failed re-read keeps the last version. The gates are that release's defaults
// with --feature-gates on top. /version is readable by every client (the default ClusterRole
// system:public-info-viewer), so this needs no RBAC.
import { type KubeConfig, VersionApi } from '@kubernetes/client-node';
import {
  type Feature,
  featureDefault,
  features,
  featureVersionOf,
  formatVersion,
  type KubernetesVersion,
} from '../../api/feature-gates.ts';
import { type Clock, systemClock } from '../../ports/clock.ts';
import { type FeatureGateOverrides, type FeatureGates, featureGatesAt } from '../../ports/feature-gates.ts';
import { type Logger, silentLogger } from '../../ports/logger.ts';
import { boundedCall } from './client/bounded-call.ts';
import { createKubeRequests } from './client/kube.ts';

/** A blip at start-up costs little; a long outage is retried every retryMs. */
const firstRetryMs = 250;

export interface ClusterFeatureGatesOptions {
  kubeConfig: KubeConfig;
  overrides?: FeatureGateOverrides;
  /** Longest pause between attempts while the version has never been read (default 5 s; the first is 250 ms, doubling). */
  retryMs?: number;
  /** Time between re-reads once it has (default 10 min). */
  refreshMs?: number;
  /** Bound on one GET /version (default 10 s). */
  timeoutMs?: number;
  logger?: Logger;
  clock?: Clock;
}

export interface ClusterFeatureGates extends FeatureGates {
  /** Reads the version until it answers or close(); resolves once it has (or on close). */
  load(): Promise<void>;
  /** Why the gates cannot answer yet (the version has not been read: the last error); [] once they can. */
  notReadyReasons(): string[];
  close(): Promise<void>;
}

export function createClusterFeatureGates(options: ClusterFeatureGatesOptions): ClusterFeatureGates {
  const {
    kubeConfig,
    overrides = {},
    retryMs = 5_000,
    refreshMs = 600_000,
    timeoutMs = 10_000,
    logger = silentLogger,
    clock = systemClock,
  } = options;
  const requests = createKubeRequests(kubeConfig);
  const versionApi = kubeConfig.makeApiClient(VersionApi);
  const url = `${kubeConfig.getCurrentCluster()?.server ?? ''}/version`;
  const closing = new AbortController();
  let version: KubernetesVersion | undefined;
  let gates: FeatureGates | undefined;
  let lastError: string | undefined;
  let running: Promise<void> | undefined;
  let markLoaded = () => {};
  const loaded = new Promise<void>((resolve) => (markLoaded = resolve));

  async function read(): Promise<void> {
    try {
      const info = await boundedCall({ requests, timeoutMs }, { method: 'Get', url }, (call) => versionApi.getCode(call), closing.signal);
      const next = featureVersionOf(info);
      lastError = undefined;
      if (version === undefined || formatVersion(version) !== formatVersion(next)) {
        logger.info(
          { version: formatVersion(next), featureGates: describeGates(next, overrides) },
          'cluster version read: feature gates follow it',
        );
      }
      version = next;
      gates = featureGatesAt(next, overrides);
      markLoaded();
    } catch (error) {
      if (closing.signal.aborted) return;
      lastError = (error as Error).message;
      if (version === undefined) logger.warn({ err: lastError }, 'cannot read the cluster version; retrying');
      else logger.warn({ err: lastError, version: formatVersion(version) }, 'cannot re-read the cluster version; keeping the last one');
    }
  }

  async function run(): Promise<void> {
    let retry = Math.min(firstRetryMs, retryMs);
    while (!closing.signal.aborted) {
      await read();
      const pause = version === undefined ? retry : refreshMs;
      retry = Math.min(retry * 2, retryMs);
      await clock.sleep(pause, closing.signal).catch(() => {});
    }
  }

  return {
    enabled(feature: Feature) {
      if (gates === undefined)
        throw new Error(
          `cannot tell whether feature gate ${feature} is on: the cluster version has not been read yet${lastError ? ` (${lastError})` : ''}`,
        );
      return gates.enabled(feature);
    },
    load() {
      running ??= run();
      return Promise.race([loaded, running]);
    },
    notReadyReasons: () =>
      gates !== undefined ? [] : [`the cluster version has not been read${lastError ? ` (last error: ${lastError})` : ''}`],
    async close() {
      closing.abort(new Error('feature gates closed'));
      await running;
      await requests.close();
    },
  };
}

/**
 * Each gate's value and where it comes from, for the log: "false (default)", or "true
 * (--feature-gates; default false)". An override against a locked default is said to be one: that
 * kube-apiserver cannot run so, and the flag is likely a leftover.
 */
function describeGates(version: KubernetesVersion, overrides: FeatureGateOverrides): Record<string, string> {
  const described: Record<string, string> = {};
  for (const feature of features) {
    const { enabled, locked } = featureDefault(feature, version);
    const set = overrides[feature];
    const against = locked && set !== enabled ? `, locked to ${enabled} in ${formatVersion(version)}` : '';
    described[feature] = set === undefined ? `${enabled} (default)` : `${set} (--feature-gates; default ${enabled}${against})`;
  }
  return described;
}
