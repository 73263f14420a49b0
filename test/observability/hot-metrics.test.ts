// The request-path metrics against prom-client itself: the same observations through a
// prom-client Counter/Histogram and through HotCounter/HotHistogram must expose the same text,
// byte for byte, so dashboards, alerts and promtool see no difference.
import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { HotCounter, HotHistogram } from '../../src/observability/hot-metrics.ts';
import { admissionBuckets } from '../../src/observability/metrics.ts';

/** A small deterministic generator, so a failure reproduces. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const operations = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'];

function pairOf() {
  const reference = new Registry();
  const hot = new Registry();
  const histogram = {
    name: 'test_duration_seconds',
    help: 'Latency in seconds, by operation and rejection.',
    labelNames: ['operation', 'rejected'] as const,
    buckets: admissionBuckets,
  };
  const counter = {
    name: 'test_requests_total',
    help: 'Requests, by webhook, operation and code.',
    labelNames: ['webhook', 'operation', 'code'] as const,
  };
  const plain = { name: 'test_joins_total', help: 'Joins.' };
  return {
    reference,
    hot,
    ref: {
      histogram: new Histogram({ ...histogram, labelNames: [...histogram.labelNames], registers: [reference] }),
      counter: new Counter({ ...counter, labelNames: [...counter.labelNames], registers: [reference] }),
      plain: new Counter({ ...plain, registers: [reference] }),
    },
    ours: {
      histogram: new HotHistogram({ ...histogram, registers: [hot] }),
      counter: new HotCounter({ ...counter, registers: [hot] }),
      plain: new HotCounter({ ...plain, registers: [hot] }),
    },
  };
}

describe('HotCounter and HotHistogram', () => {
  it('expose exactly what prom-client exposes for the same observations', async () => {
    const { reference, hot, ref, ours } = pairOf();
    expect(await hot.metrics()).toBe(await reference.metrics());
    const next = random(42);
    for (let i = 0; i < 5_000; i++) {
      const operation = operations[Math.floor(next() * operations.length)]!;
      const rejected = next() < 0.3 ? 'true' : 'false';
      // Latencies across every bucket, exactly on bounds, and beyond the last one.
      const roll = next();
      const value =
        roll < 0.1 ? admissionBuckets[Math.floor(next() * admissionBuckets.length)]! : roll < 0.15 ? 3 + next() * 10 : next() ** 4 * 0.6;
      // Label objects in varying key order: the first order seen is the one exposed.
      const labels = next() < 0.5 ? { operation, rejected } : { rejected, operation };
      ref.histogram.observe(labels, value);
      ours.histogram.observe(labels, value);
      const code = next() < 0.9 ? '200' : '403';
      ref.counter.inc({ webhook: 'validate', operation, code });
      ours.counter.inc({ webhook: 'validate', operation, code });
      if (next() < 0.1) {
        ref.plain.inc();
        ours.plain.inc();
      }
    }
    ref.counter.inc({ webhook: 'mutate', operation: 'CREATE', code: '200' }, 0);
    ours.counter.inc({ webhook: 'mutate', operation: 'CREATE', code: '200' }, 0);
    ref.counter.inc({ webhook: 'mutate', operation: 'UPDATE', code: '200' }, 2.5);
    ours.counter.inc({ webhook: 'mutate', operation: 'UPDATE', code: '200' }, 2.5);
    const text = await hot.metrics();
    expect(text).toBe(await reference.metrics());
    expect(text).toMatch(/^test_duration_seconds_bucket\{le="\+Inf",(operation|rejected)="[^"]+",(operation|rejected)="[^"]+"\} \d+$/m);
    // The JSON form too, but for prom-client's exemplar slots (empty: exemplars are off).
    const withoutExemplars = (metrics: Awaited<ReturnType<Registry['getMetricsAsJSON']>>) =>
      metrics.map(({ name, help, type, aggregator, values }) => ({
        name,
        help,
        type,
        aggregator,
        values: values.map(({ value, labels, metricName }: { value: number; labels: object; metricName?: string }) => ({
          value,
          labels,
          metricName,
        })),
      }));
    expect(withoutExemplars(await hot.getMetricsAsJSON())).toEqual(withoutExemplars(await reference.getMetricsAsJSON()));
  });

  it('reset with the registry, as prom-client metrics do', async () => {
    const { reference, hot, ref, ours } = pairOf();
    ref.histogram.observe({ operation: 'CREATE', rejected: 'false' }, 0.001);
    ours.histogram.observe({ operation: 'CREATE', rejected: 'false' }, 0.001);
    ref.plain.inc();
    ours.plain.inc();
    reference.resetMetrics();
    hot.resetMetrics();
    expect(await hot.metrics()).toBe(await reference.metrics());
  });

  it('refuse what prom-client refuses: unknown labels, decrements, non-finite values', () => {
    const { ref, ours } = pairOf();
    expect(() => ref.counter.inc({ user: 'jane' } as never)).toThrow();
    expect(() => ours.counter.inc({ user: 'jane' } as never)).toThrow(/not included in initial labelset/);
    expect(() => ref.counter.inc({ webhook: 'mutate' }, -1)).toThrow();
    expect(() => ours.counter.inc({ webhook: 'mutate' }, -1)).toThrow(/not possible to decrease/);
    expect(() => ref.histogram.observe({ operation: 'CREATE' }, Number.NaN)).toThrow();
    expect(() => ours.histogram.observe({ operation: 'CREATE' }, Number.NaN)).toThrow(/not a valid number/);
  });

  it('cannot be registered twice under one name, like any prom-client metric', () => {
    const registry = new Registry();
    new HotCounter({ name: 'dup_total', help: 'x', registers: [registry] });
    expect(() => new Counter({ name: 'dup_total', help: 'x', registers: [registry] })).toThrow(/already been registered/);
  });
});
