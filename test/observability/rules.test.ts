// The monitoring the chart ships: promtool checks the rule file and runs its unit tests, a doctored
// copy of those tests must fail (so they do evaluate the alerts), the chart-rendered PrometheusRule
// carries exactly the same groups (and passes the same unit tests), the rules' label matchers fit the
// job and namespace the chart's ServiceMonitor produces, and every Grafana query is valid PromQL over
// metrics we really expose.
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { defaultNamespace, type KubeObject, only, renderChart } from '../deploy/helm.ts';
import { hasPromtool, needs, promtool } from './binaries.ts';
import { sendTraffic, startTestWebhook, type TestWebhook } from './webhook.ts';

// The chart's files/ are the one source of the rules and the dashboard; monitoring/ keeps the tests.
const chartFiles = resolve(import.meta.dirname, '../../charts/admission-chain/files');
const rulesFile = join(chartFiles, 'admission-chain.rules.yaml');
const dashboardFile = join(chartFiles, 'admission-chain.json');
const rulesTestFile = resolve(import.meta.dirname, '../../monitoring/tests/admission-chain.rules.test.yaml');

interface RuleGroups {
  groups: Array<{ name: string; rules: Array<{ alert?: string; record?: string; expr: string }> }>;
}

describe('Prometheus rules', () => {
  it.skipIf(!hasPromtool)(`pass promtool check rules${needs('promtool')}`, async () => {
    const result = await promtool(['check', 'rules', rulesFile]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('SUCCESS: 15 rules found');
  });

  it.skipIf(!hasPromtool)(`pass their promtool unit tests${needs('promtool')}`, async () => {
    const result = await promtool(['test', 'rules', rulesTestFile]);
    expect(result.stdout + result.stderr).toContain('SUCCESS');
    expect(result.code).toBe(0);
  });

  it.skipIf(!hasPromtool)(`unit tests fail when an alert that fires is expected to stay quiet${needs('promtool')}`, async () => {
    const suite = parse(await readFile(rulesTestFile, 'utf8')) as {
      rule_files: string[];
      tests: Array<{ alert_rule_test?: Array<{ alertname: string; exp_alerts: unknown[] }> }>;
    };
    const firing = suite.tests.flatMap((t) => t.alert_rule_test ?? []).filter((c) => c.exp_alerts.length > 0);
    // Every alert in the rule file has a case where it fires.
    const alerts = (parse(await readFile(rulesFile, 'utf8')) as RuleGroups).groups
      .flatMap((g) => g.rules)
      .flatMap((r) => (r.alert ? [r.alert] : []));
    expect(new Set(firing.map((c) => c.alertname))).toEqual(new Set(alerts));
    for (const testCase of firing) testCase.exp_alerts = [];
    const dir = await mkdtemp(join(tmpdir(), 'admission-chain-rules-'));
    const doctored = join(dir, 'doctored.test.yaml');
    await writeFile(doctored, stringify({ ...suite, rule_files: [rulesFile] }));
    const result = await promtool(['test', 'rules', doctored]);
    expect(result.code).not.toBe(0);
    for (const alert of alerts) expect(result.stdout + result.stderr).toContain(`alertname: ${alert}`);
  });

  describe('shipped by the chart as a PrometheusRule', () => {
    type PrometheusRule = KubeObject & { spec: RuleGroups };
    type ServiceMonitor = KubeObject & {
      spec: { jobLabel?: string; endpoints: Array<{ relabelings?: unknown[]; metricRelabelings?: unknown[] }> };
    };
    const objects = renderChart({ apiVersions: ['monitoring.coreos.com/v1'] });
    const rendered = only<PrometheusRule>(objects, 'PrometheusRule');

    it('with the very same groups as the rule file', async () => {
      const plain = parse(await readFile(rulesFile, 'utf8')) as RuleGroups;
      expect(rendered).toMatchObject({
        apiVersion: 'monitoring.coreos.com/v1',
        kind: 'PrometheusRule',
        metadata: { namespace: defaultNamespace },
      });
      expect(rendered.spec.groups.length).toBeGreaterThan(0);
      expect(rendered.spec.groups).toEqual(plain.groups);
    });

    it.skipIf(!hasPromtool)(`whose rendered groups pass the same promtool unit tests${needs('promtool')}`, async () => {
      const dir = await mkdtemp(join(tmpdir(), 'admission-chain-rendered-rules-'));
      const renderedRules = join(dir, 'rendered.rules.yaml');
      await writeFile(renderedRules, stringify({ groups: rendered.spec.groups }));
      const suite = parse(await readFile(rulesTestFile, 'utf8')) as Record<string, unknown>;
      const suiteFile = join(dir, 'rendered.test.yaml');
      await writeFile(suiteFile, stringify({ ...suite, rule_files: [renderedRules] }));
      const result = await promtool(['test', 'rules', suiteFile]);
      expect(result.stdout + result.stderr).toContain('SUCCESS');
      expect(result.code).toBe(0);
    });

    it("selecting series only by labels the ServiceMonitor's scrape gives them", () => {
      // The Prometheus Operator names the job after the Service (unless jobLabel says otherwise) and
      // labels every series with the Service's namespace. Any job/namespace matcher in a rule must
      // accept those values; today the rules use none, so they match any scrape of the webhook.
      const monitor = only<ServiceMonitor>(objects, 'ServiceMonitor');
      const service = only(objects, 'Service');
      expect(monitor.spec.jobLabel).toBeUndefined();
      for (const endpoint of monitor.spec.endpoints) expect(endpoint.relabelings ?? endpoint.metricRelabelings).toBeUndefined();
      const scrapeLabels: Record<string, string> = {
        job: service.metadata.name,
        namespace: defaultNamespace,
        service: service.metadata.name,
      };
      const exprs = rendered.spec.groups.flatMap((g) => g.rules).map((r) => r.expr);
      expect(exprs.length).toBe(15);
      for (const expr of exprs) {
        for (const [, label, op, value] of expr.matchAll(/\b(job|namespace|service)\s*(=~|!~|!=|=)\s*"([^"]*)"/g)) {
          const actual = scrapeLabels[label!]!;
          const matches = op!.endsWith('~') ? new RegExp(`^(?:${value})$`).test(actual) : actual === value;
          expect(op!.startsWith('!') ? !matches : matches, `${label}${op}"${value}" in ${expr}`).toBe(true);
        }
      }
    });
  });
});

describe('Grafana dashboard', () => {
  let webhook: TestWebhook;
  let exposed: Set<string>;
  let dashboard: { uid: string; title: string; panels: Array<{ type: string; title: string; targets?: Array<{ expr: string }> }> };

  beforeAll(async () => {
    webhook = await startTestWebhook();
    await sendTraffic(webhook, { allowed: 1, denied: 1 });
    const exposition = await webhook.scrape();
    exposed = new Set(
      [...exposition.matchAll(/^# TYPE (\S+) (\S+)$/gm)].flatMap(([, name, type]) =>
        type === 'histogram' ? [`${name}_bucket`, `${name}_sum`, `${name}_count`] : [name!],
      ),
    );
    dashboard = JSON.parse(await readFile(dashboardFile, 'utf8'));
  });
  afterAll(() => webhook?.shutdown());

  const exprs = () => dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => ({ panel: p.title, expr: t.expr })));

  it('queries only metrics the webhook exposes', () => {
    expect(dashboard).toMatchObject({ uid: 'admission-chain', title: 'admission-chain' });
    expect(exprs().length).toBeGreaterThan(15);
    for (const { panel, expr } of exprs()) {
      const names = [...expr.matchAll(/\b((?:admission_chain|process|nodejs)_[a-z0-9_]+)\b/g)].map((m) => m[1]!);
      expect(names.length, panel).toBeGreaterThan(0);
      for (const name of names) expect(exposed, `${panel}: ${name}`).toContain(name);
    }
  });

  it('plots every way a request is refused or fails outside admission (monitoring/README.md, Refused requests)', () => {
    const plotted = exprs().map(({ expr }) => expr);
    for (const metric of [
      'admission_chain_bad_requests_total',
      'admission_chain_unavailable_requests_total',
      'admission_chain_internal_errors_total',
    ])
      expect(
        plotted.some((expr) => expr.includes(metric)),
        metric,
      ).toBe(true);
  });

  it.skipIf(!hasPromtool)(`has queries that are valid PromQL${needs('promtool')}`, async () => {
    // promtool parses PromQL only inside rule files: each query becomes a recording rule, with
    // Grafana's variables replaced by what they expand to.
    const rules = exprs().map(({ expr }, i) => ({
      record: `dashboard:query_${i}`,
      expr: expr.replaceAll('$__rate_interval', '1m').replaceAll('$job', '.+'),
    }));
    const dir = await mkdtemp(join(tmpdir(), 'admission-chain-dashboard-'));
    const file = join(dir, 'dashboard.rules.yaml');
    await writeFile(file, stringify({ groups: [{ name: 'dashboard', rules }] }));
    const result = await promtool(['check', 'rules', file]);
    expect(result.stdout + result.stderr).toContain(`SUCCESS: ${rules.length} rules found`);
    expect(result.code).toBe(0);
  });
});
