// Reads of service accounts, secrets and runtime classes: cache first, live GET on a miss, and the
// ServiceAccount plugin's retries while it waits for `default`. Labelled by resource and source only.
import { Counter, Histogram, type Registry } from 'prom-client';
import type { LookupRecorder } from './recorders.ts';

const liveBuckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

export interface LookupMetrics {
  readonly lookups: Counter<'resource' | 'source' | 'result'>;
  readonly liveDuration: Histogram<'resource' | 'result'>;
  readonly retries: Counter<'resource'>;
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
