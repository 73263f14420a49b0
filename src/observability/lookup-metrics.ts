// Reads of service accounts, secrets and runtime classes: cache first, live GET on a miss, and the
// ServiceAccount plugin's retries while it waits for `default`; and, on the cluster backend, the
// informer caches behind them (LISTs, failures, restarts, and when each last listed). Labelled by
// resource, source, result and restart reason only.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { InformerRecorder, LookupRecorder, LookupResource } from '../ports/recorders.ts';

const liveBuckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

export interface LookupMetrics {
  readonly lookups: Counter<'resource' | 'source' | 'result'>;
  readonly liveDuration: Histogram<'resource' | 'result'>;
  readonly retries: Counter<'resource'>;
  readonly informerLists: Counter<'resource'>;
  readonly informerErrors: Counter<'resource'>;
  readonly informerRestarts: Counter<'resource' | 'reason'>;
  readonly informerLastList: Gauge<'resource'>;
}

export function createLookupMetrics(registry: Registry): LookupMetrics {
  const registers = [registry];
  return {
    lookups: new Counter({
      name: 'admission_chain_lookups_total',
      help: 'Object look-ups by plugins, by resource, source (cache or live) and result (hit, miss, not_found, error).',
      labelNames: ['resource', 'source', 'result'],
      registers,
    }),
    liveDuration: new Histogram({
      name: 'admission_chain_lookup_live_duration_seconds',
      help: 'Live GET latency for look-ups that missed the cache, in seconds, by resource and result.',
      labelNames: ['resource', 'result'],
      buckets: liveBuckets,
      registers,
    }),
    retries: new Counter({
      name: 'admission_chain_lookup_retries_total',
      help: 'Live GETs repeated after a NotFound for the same object (ServiceAccount waiting for the default service account).',
      labelNames: ['resource'],
      registers,
    }),
    informerLists: new Counter({
      name: 'admission_chain_informer_lists_total',
      help: 'Completed LISTs that (re)filled an informer cache (cluster backend), by resource: the first, relists after a restart, and resyncs.',
      labelNames: ['resource'],
      registers,
    }),
    informerErrors: new Counter({
      name: 'admission_chain_informer_errors_total',
      help: 'Informer LIST or WATCH failures (cluster backend), by resource; the cache keeps its contents and restarts after a backoff.',
      labelNames: ['resource'],
      registers,
    }),
    informerRestarts: new Counter({
      name: 'admission_chain_informer_restarts_total',
      help: 'Informer caches started over with a fresh LIST (cluster backend), by resource and reason (error, stall, resync).',
      labelNames: ['resource', 'reason'],
      registers,
    }),
    informerLastList: new Gauge({
      name: 'admission_chain_informer_last_list_timestamp_seconds',
      help: 'When an informer cache (cluster backend) last completed a LIST, as a Unix timestamp in seconds, by resource.',
      labelNames: ['resource'],
      registers,
    }),
  };
}

export function lookupRecorder(metrics: LookupMetrics): LookupRecorder {
  return {
    cacheRead: ({ resource, found }) => metrics.lookups.inc({ resource, source: 'cache', result: found ? 'hit' : 'miss' }),
    liveRead: ({ resource, result, durationSeconds }) => {
      const label = result === 'found' ? 'hit' : result === 'not-found' ? 'not_found' : 'error';
      metrics.lookups.inc({ resource, source: 'live', result: label });
      metrics.liveDuration.observe({ resource, result: label }, durationSeconds);
    },
    retried: ({ resource }) => metrics.retries.inc({ resource }),
  };
}

export function informerRecorder<R extends string = LookupResource>(
  metrics: LookupMetrics,
  now: () => number = Date.now,
): InformerRecorder<R> {
  return {
    informerList: (resource) => {
      metrics.informerLists.inc({ resource });
      metrics.informerLastList.set({ resource }, now() / 1000);
    },
    informerError: (resource) => metrics.informerErrors.inc({ resource }),
    informerRestart: (resource, reason) => metrics.informerRestarts.inc({ resource, reason }),
  };
}
