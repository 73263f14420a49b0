// Discovery refreshes (the RESTMapper's source for owner kinds): how often they run, how they end,
// and when one last succeeded — a stale mapper is what an alert should catch, not one failure.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { DiscoveryRecorder, DiscoveryRefreshResult } from '../ports/recorders.ts';

const refreshBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const results: readonly DiscoveryRefreshResult[] = ['success', 'partial', 'error'];

export interface DiscoveryMetrics {
  readonly refreshes: Counter<'result'>;
  readonly refreshDuration: Histogram<'result'>;
  readonly lastSuccess: Gauge;
}

export function createDiscoveryMetrics(registry: Registry): DiscoveryMetrics {
  const registers = [registry];
  const refreshes = new Counter({
    name: 'admission_chain_discovery_refreshes_total',
    help: 'API discovery refreshes, by result (success, partial when some group versions failed, error).',
    labelNames: ['result'],
    registers,
  });
  for (const result of results) refreshes.inc({ result }, 0);
  return {
    refreshes,
    refreshDuration: new Histogram({
      name: 'admission_chain_discovery_refresh_duration_seconds',
      help: 'API discovery refresh latency in seconds, by result.',
      labelNames: ['result'],
      buckets: refreshBuckets,
      registers,
    }),
    lastSuccess: new Gauge({
      name: 'admission_chain_discovery_last_success_timestamp_seconds',
      help: 'When API discovery last refreshed completely, as a Unix timestamp in seconds (0 before the first).',
      registers,
    }),
  };
}

export function discoveryRecorder(metrics: DiscoveryMetrics, now: () => number = Date.now): DiscoveryRecorder {
  return {
    refreshCompleted: ({ result, durationSeconds }) => {
      metrics.refreshes.inc({ result });
      metrics.refreshDuration.observe({ result }, durationSeconds);
      if (result === 'success') metrics.lastSuccess.set(now() / 1000);
    },
  };
}
