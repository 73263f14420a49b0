// A real Prometheus scrapes the running webhook: the p99 admission latency and the request
// counters, queried through Prometheus' HTTP API, match the traffic we sent, and our rule file
// loads and evaluates cleanly against real series.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { hasPrometheus, needs } from './binaries.ts';
import { type RunningPrometheus, startPrometheus, waitUntil } from './prometheus.ts';
import { sendTraffic, startTestWebhook, type TestWebhook } from './webhook.ts';

const rulesFile = resolve(import.meta.dirname, '../../charts/admission-chain/files/admission-chain.rules.yaml');
// Every rule the file holds: Prometheus must load them all.
const ruleCount = (parse(readFileSync(rulesFile, 'utf8')) as { groups: Array<{ rules: unknown[] }> }).groups.reduce(
  (n, g) => n + g.rules.length,
  0,
);
const p99 = 'histogram_quantile(0.99, rate(admission_chain_step_admission_duration_seconds_bucket[1m]))';

describe.skipIf(!hasPrometheus)(`a real Prometheus scraping the webhook${needs('prometheus')}`, () => {
  let webhook: TestWebhook | undefined;
  let prometheus: RunningPrometheus | undefined;

  beforeAll(async () => {
    webhook = await startTestWebhook();
    prometheus = await startPrometheus({ targets: [`127.0.0.1:${webhook.metricsPort}`], ruleFiles: [rulesFile] });
    await waitUntil(
      'the first scrape of the webhook',
      async () => (await prometheus!.query('up{job="admission-chain"}'))[0]?.value[1] === '1',
      15_000,
    );
    // Series are born with the first request, and rate() needs to see them grow between two
    // scrapes: so a first batch, a scrape that stores it, then a second batch.
    await sendTraffic(webhook, { allowed: 20, denied: 10 });
    await waitUntil(
      'a scrape with the first batch',
      async () => (await prometheus!.query('admission_chain_requests_total')).length === 2,
      15_000,
    );
    await sendTraffic(webhook, { allowed: 20, denied: 15 });
  }, 40_000);

  afterAll(async () => {
    await prometheus?.stop();
    await webhook?.shutdown();
  }, 15_000);

  it('answers the request counters exactly as sent', async () => {
    await expect
      .poll(
        async () =>
          Object.fromEntries(
            (await prometheus!.query('sum by (webhook, allowed) (admission_chain_requests_total)')).map((s) => [
              `${s.metric.webhook}/${s.metric.allowed}`,
              s.value[1],
            ]),
          ),
        {
          timeout: 15_000,
          interval: 250,
        },
      )
      .toEqual({ 'mutate/true': '40', 'validate/false': '25' });
    await expect
      .poll(async () => Number((await prometheus!.query('sum(rate(admission_chain_requests_total[1m]))'))[0]?.value[1]), {
        timeout: 10_000,
        interval: 250,
      })
      .toBeGreaterThan(0);
  }, 20_000);

  it(`computes ${p99} for both phases`, async () => {
    let samples: Awaited<ReturnType<RunningPrometheus['query']>> = [];
    await expect
      .poll(
        async () => {
          samples = (await prometheus!.query(p99)).filter((s) => Number.isFinite(Number(s.value[1])));
          return samples.map((s) => `${s.metric.type}/${s.metric.rejected}`).sort();
        },
        { timeout: 15_000, interval: 250 },
      )
      .toEqual(['admit/false', 'validate/true']);
    for (const sample of samples) {
      const seconds = Number(sample.value[1]);
      // In-process plugins on loopback: well inside upstream's largest finite bucket.
      expect(seconds).toBeGreaterThan(0);
      expect(seconds).toBeLessThanOrEqual(2.5);
      expect(sample.metric).toMatchObject({ job: 'admission-chain', operation: 'CREATE' });
    }
  }, 20_000);

  it('loads our rule file and evaluates every rule without error', async () => {
    type Rules = { groups: Array<{ name: string; rules: Array<{ name: string; health: string; lastError?: string }> }> };
    await expect
      .poll(
        async () => {
          const { groups } = await prometheus!.api<Rules>('/api/v1/rules');
          return groups.flatMap((g) => g.rules.map((r) => `${r.name}:${r.health}${r.lastError ? `:${r.lastError}` : ''}`));
        },
        { timeout: 10_000, interval: 250 },
      )
      .toHaveLength(ruleCount);
    await expect
      .poll(async () => (await prometheus!.api<Rules>('/api/v1/rules')).groups.flatMap((g) => g.rules).every((r) => r.health === 'ok'), {
        timeout: 10_000,
        interval: 250,
      })
      .toBe(true);
    // The recording rule sees the same traffic the raw query does.
    await expect
      .poll(async () => (await prometheus!.query('admission_chain:requests:rate5m{webhook="validate"}')).length, {
        timeout: 10_000,
        interval: 250,
      })
      .toBeGreaterThan(0);
    // A fresh certificate raises no expiry alert.
    expect(await prometheus!.query('ALERTS{alertname=~"AdmissionChainCertificate.*"}')).toEqual([]);
    // The outage alert's job matcher finds the running webhook's target (pending only until the first scrape).
    await expect
      .poll(async () => prometheus!.query('ALERTS{alertname="AdmissionChainDown"}'), { timeout: 10_000, interval: 250 })
      .toEqual([]);
  }, 30_000);
});
