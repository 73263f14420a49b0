// `audit -o policyreport --apply-reports`: the reports written to the audited cluster instead of
// stdout, for a scheduled audit (the chart's CronJob) that report readers watch. The report sink
// writes its YAML stream here; at the end it is applied, and stdout says what changed, a line a
// report.
import { parseAllDocuments } from 'yaml';
import type { KubeObject } from '../api/types.ts';
import { type ReportResources, writeClusterReports } from '../wiring/cluster-reports.ts';
import type { Writer } from './audit-output.ts';
import { type ReportApi, reportName } from './audit-reports.ts';
import { CliError, type CliIO } from './io.ts';

const resources: Record<ReportApi, ReportResources> = {
  'openreports.io/v1alpha1': {
    group: 'openreports.io',
    version: 'v1alpha1',
    namespaced: { kind: 'Report', resource: 'reports' },
    cluster: { kind: 'ClusterReport', resource: 'clusterreports' },
  },
  'wgpolicyk8s.io/v1alpha2': {
    group: 'wgpolicyk8s.io',
    version: 'v1alpha2',
    namespaced: { kind: 'PolicyReport', resource: 'policyreports' },
    cluster: { kind: 'ClusterPolicyReport', resource: 'clusterpolicyreports' },
  },
};

export interface ReportApplier {
  /** Where the report sink writes. */
  out: Writer;
  /** Applies what was written, deletes our reports with nothing left in them, and says so on stdout. */
  apply(): Promise<void>;
}

export function reportApplier(api: ReportApi, kubeconfig: string | undefined, timeoutMs: number, io: CliIO): ReportApplier {
  const chunks: string[] = [];
  return {
    out: { write: (text: string) => chunks.push(text) },
    async apply() {
      const reports = parseAllDocuments(chunks.join(''))
        .map((document) => document.toJS() as KubeObject | null)
        .filter((report): report is KubeObject => report !== null);
      let changes: Awaited<ReturnType<typeof writeClusterReports>>;
      try {
        changes = await writeClusterReports(
          { kubeconfig, resources: resources[api], name: reportName, manager: 'admission-chain', timeoutMs },
          reports,
        );
      } catch (error) {
        throw new CliError((error as Error).message);
      }
      for (const c of changes) io.stdout.write(`${c.kind} ${c.namespace === undefined ? '' : `${c.namespace}/`}${c.name} ${c.change}\n`);
    },
  };
}
