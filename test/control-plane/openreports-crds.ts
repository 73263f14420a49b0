// The OpenReports CRDs `audit -o policyreport` and `--apply-reports` write to, installed and
// established before a suite uses them.

/** Applies the CRDs with the suite's kubectl and waits until the API server serves both kinds. */
export async function installOpenReportsCrds(kubectl: (...args: string[]) => Promise<unknown>): Promise<void> {
  await kubectl('apply', '-f', 'test/fixtures/audit/openreports-crds.yaml');
  await kubectl(
    'wait',
    '--for',
    'condition=established',
    '--timeout=30s',
    'crd/reports.openreports.io',
    'crd/clusterreports.openreports.io',
  );
}
