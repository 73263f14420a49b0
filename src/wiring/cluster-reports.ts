// Report objects written to a cluster (audit --apply-reports), through the cluster adapters: the
// kubeconfig as the cluster backend loads it. Loaded only when used, like the cluster backend.

import type { ReportChange, ReportResources } from '../adapters/cluster/objects/apply-reports.ts';
import type { KubeObject } from '../api/types.ts';

export type { ReportChange, ReportResources } from '../adapters/cluster/objects/apply-reports.ts';

export interface ClusterReportsOptions {
  /** --kubeconfig; otherwise KUBECONFIG, ~/.kube/config, then in-cluster. */
  kubeconfig: string | undefined;
  resources: ReportResources;
  name: string;
  manager: string;
  timeoutMs: number;
}

export async function writeClusterReports(options: ClusterReportsOptions, reports: readonly KubeObject[]): Promise<ReportChange[]> {
  const [{ loadKubeConfig }, { writeReports }] = await Promise.all([
    import('./cluster.ts'),
    import('../adapters/cluster/objects/apply-reports.ts'),
  ]);
  const { kubeconfig, ...rest } = options;
  return writeReports({ ...rest, kubeConfig: loadKubeConfig(kubeconfig) }, reports);
}
