// Our real /metrics, after real traffic, linted by `promtool check metrics` (names, units, _total,
// help text), and checked for what upstream's admission metrics promise: the same names and labels
// under our prefix, seconds, and no unbounded label values.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasPromtool, needs, promtool } from './binaries.ts';
import { sendTraffic, startTestWebhook, type TestWebhook } from './webhook.ts';

describe('the /metrics exposition', () => {
  let webhook: TestWebhook;
  let exposition: string;

  beforeAll(async () => {
    webhook = await startTestWebhook();
    await sendTraffic(webhook, { allowed: 3, denied: 2 });
    // A JSON string is valid JSON but no AdmissionReview: refused before admission.
    expect((await webhook.review('/mutate', 'not a review')).status).toBe(400);
    exposition = await webhook.scrape();
  });
  afterAll(() => webhook?.shutdown());

  it.skipIf(!hasPromtool)(`passes promtool check metrics${needs('promtool')}`, async () => {
    const result = await promtool(['check', 'metrics'], { stdin: exposition });
    expect(result.stderr + result.stdout).toBe('');
    expect(result.code).toBe(0);
  });

  it.skipIf(!hasPromtool)(`promtool check metrics does reject a misnamed metric (the lint is live)${needs('promtool')}`, async () => {
    const broken = `${exposition}# HELP admission_chain_widgets_total A gauge that claims to be a counter.\n# TYPE admission_chain_widgets_total gauge\nadmission_chain_widgets_total 1\n`;
    const result = await promtool(['check', 'metrics'], { stdin: broken });
    expect(result.code).not.toBe(0);
    expect(result.stdout + result.stderr).toContain('admission_chain_widgets_total');
  });

  it('counts the traffic in kube-apiserver vocabulary', () => {
    expect(exposition).toContain('admission_chain_requests_total{webhook="mutate",operation="CREATE",allowed="true",code="200"} 3');
    // The code is whatever the plugin's Status says (upstream's AlwaysPullImages denial is a 500).
    expect(exposition).toMatch(/^admission_chain_requests_total\{webhook="validate",operation="CREATE",allowed="false",code="\d{3}"\} 2$/m);
    // Policy denials are not internal errors.
    expect(exposition).toContain('admission_chain_internal_errors_total{webhook="validate"} 0');
    expect(exposition).toContain(
      'admission_chain_step_admission_duration_seconds_count{type="admit",operation="CREATE",rejected="false"} 3',
    );
    expect(exposition).toContain(
      'admission_chain_step_admission_duration_seconds_count{type="validate",operation="CREATE",rejected="true"} 2',
    );
    expect(exposition).toContain(
      'admission_chain_controller_admission_duration_seconds_count{name="AlwaysPullImages",type="validate",operation="CREATE",rejected="true"} 2',
    );
    expect(exposition).toContain('admission_chain_bad_requests_total{webhook="mutate",reason="bad_review"} 1');
    expect(exposition).toMatch(/^admission_chain_tls_certificate_expiry_timestamp_seconds \d{10}/m);
  });

  it('keeps upstream buckets (0.005 … 2.5 s) and adds sub-millisecond ones', () => {
    const bounds = [
      ...exposition.matchAll(
        /^admission_chain_step_admission_duration_seconds_bucket\{le="([^"]+)",type="admit",operation="CREATE",rejected="false"\}/gm,
      ),
    ].map((m) => m[1]);
    for (const upstream of ['0.005', '0.025', '0.1', '0.5', '1', '2.5', '+Inf']) expect(bounds).toContain(upstream);
    expect(bounds).toContain('0.0001');
  });

  it('exposes default process metrics', () => {
    expect(exposition).toMatch(/^process_cpu_seconds_total \d/m);
    expect(exposition).toMatch(/^process_resident_memory_bytes \d/m);
    expect(exposition).toMatch(/^nodejs_eventloop_lag_p99_seconds /m);
  });

  it('never puts a uid, object name, namespace or user in a label', () => {
    for (const secret of ['uid-secret', 'pod-private-name', 'alice', 'namespace=']) expect(exposition).not.toContain(secret);
    const labelNames = new Set([...exposition.matchAll(/[{,]([a-zA-Z_]+)="/g)].map((m) => m[1]));
    for (const forbidden of ['uid', 'namespace', 'user', 'username', 'pod']) expect(labelNames).not.toContain(forbidden);
  });

  it('has help text and no millisecond units', () => {
    const families = [...exposition.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => ({ name: m[1]!, type: m[2]! }));
    expect(families.length).toBeGreaterThan(20);
    for (const { name, type } of families) {
      expect(exposition).toMatch(new RegExp(`^# HELP ${name} \\S`, 'm'));
      expect(name).not.toMatch(/_(ms|milliseconds)(_|$)/);
      if (type === 'counter') expect(name).toMatch(/_total$/);
    }
  });
});
