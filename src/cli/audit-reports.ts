// `audit -o policyreport`: the findings as the report objects Policy Reporter and other report
// readers display — one namespaced report per namespace, one cluster report for cluster-scoped
// objects — as a YAML stream to apply. OpenReports' openreports.io/v1alpha1 (Report, ClusterReport)
// by default: the Policy working group's API moved there, Policy Reporter reads it from 3.2, and
// Kubewarden and Kyverno write it; wgpolicyk8s.io/v1alpha2 (PolicyReport, ClusterPolicyReport)
// for clusters that hold only that CRD. Both share the result's shape.
import { stringify } from 'yaml';
import type { AuditSink, Writer } from './audit-output.ts';
import type { AuditResult, Finding } from './audit-results.ts';
import { patchSummary } from './review-results.ts';

export const reportApis = ['openreports.io/v1alpha1', 'wgpolicyk8s.io/v1alpha2'] as const;
export type ReportApi = (typeof reportApis)[number];

const kinds: Record<ReportApi, { namespaced: string; cluster: string }> = {
  'openreports.io/v1alpha1': { namespaced: 'Report', cluster: 'ClusterReport' },
  'wgpolicyk8s.io/v1alpha2': { namespaced: 'PolicyReport', cluster: 'ClusterPolicyReport' },
};

const source = 'admission-chain';
export const reportName = 'admission-chain';

type ReportResultValue = 'pass' | 'fail' | 'warn';

interface ReportResult {
  source: string;
  policy: string;
  result: ReportResultValue;
  scored: boolean;
  timestamp: { seconds: number; nanos: number };
  message: string;
  resources: Array<{ apiVersion: string; kind: string; namespace?: string; name: string; uid?: string }>;
  properties?: Record<string, string>;
}

/** Collects each namespace's results and writes the reports, namespaces in name order, at the end. */
export function policyReportSink(out: Writer, api: ReportApi, now: Date): AuditSink {
  const byNamespace = new Map<string, ReportResult[]>();
  const timestamp = { seconds: Math.floor(now.getTime() / 1000), nanos: 0 };
  return {
    result(result) {
      if ('error' in result) return;
      const namespace = result.namespace ?? '';
      const results = byNamespace.get(namespace) ?? [];
      for (const finding of result.findings) results.push(reportResult(result, finding, timestamp));
      byNamespace.set(namespace, results);
    },
    end() {
      const namespaces = [...byNamespace.keys()].sort();
      const documents = namespaces.map((namespace) => report(api, namespace, byNamespace.get(namespace)!));
      out.write(documents.map((d) => stringify(d, { aliasDuplicateObjects: false, lineWidth: 0 })).join('---\n'));
    },
  };
}

function reportResult(result: AuditResult, finding: Finding, timestamp: ReportResult['timestamp']): ReportResult {
  const verdict: ReportResultValue = finding.result === 'deny' ? 'fail' : finding.result === 'warn' ? 'warn' : 'pass';
  const created = finding.object === undefined ? '' : `${finding.object} (created by ${finding.user}): `;
  const message =
    finding.result === 'mutate'
      ? `${created}admitted with changes: ${patchSummary(finding.patch ?? [])}`
      : `${created}${finding.message ?? ''}`;
  const properties: Record<string, string> = {
    ...(finding.mode === undefined ? {} : { mode: finding.mode }),
    ...(finding.object === undefined ? {} : { object: finding.object, createdBy: finding.user ?? '' }),
    ...(finding.explanation === undefined ? {} : { explanation: finding.explanation.join('\n') }),
    ...(finding.patch === undefined ? {} : { patch: JSON.stringify(finding.patch) }),
  };
  return {
    source,
    policy: finding.plugin,
    result: verdict,
    // A plugin in warn or audit mode does not decide: its result is not scored.
    scored: finding.result !== 'warn',
    timestamp,
    message,
    resources: [
      {
        apiVersion: result.apiVersion,
        kind: result.kind,
        ...(result.namespace === undefined ? {} : { namespace: result.namespace }),
        name: result.name,
      },
    ],
    ...(Object.keys(properties).length > 0 ? { properties } : {}),
  };
}

function report(api: ReportApi, namespace: string, results: ReportResult[]): Record<string, unknown> {
  const summary = { pass: 0, fail: 0, warn: 0, error: 0, skip: 0 };
  for (const r of results) summary[r.result]++;
  return {
    apiVersion: api,
    kind: namespace === '' ? kinds[api].cluster : kinds[api].namespaced,
    metadata: {
      name: reportName,
      ...(namespace === '' ? {} : { namespace }),
      labels: { 'app.kubernetes.io/managed-by': source },
    },
    // Only OpenReports has a report-wide source; the older API names it in each result alone.
    ...(api === 'openreports.io/v1alpha1' ? { source } : {}),
    summary,
    results,
  };
}
