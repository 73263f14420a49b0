// `audit --apply-reports` against a real kube-apiserver, run exactly as the chart's CronJob runs it:
// its flags, its mounted files, and as its ServiceAccount under the ClusterRole the chart renders for
// it (a client certificate for the account's user name, which RBAC matches as the ServiceAccount).
// The OpenReports CRDs are installed first, as users must, and the first audit runs as soon as they
// are established, when a new CRD's storage may still answer 429 for a moment: the calls retry. The
// reports land in the cluster one per namespace with findings; a namespace fixed since the last run
// loses its report, another tool's report stays; a namespace the webhook is never sent is not
// reported on.
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { bundle } from '../../build/bundle.ts';
import { outDir } from '../../build/entries.ts';
import { type ControlPlane, startControlPlane } from '../../control-plane/control-plane.ts';
import { projectConfigMapMounts } from '../deploy/config-map-mounts.ts';
import { defaultNamespace, type KubeObject, only, renderChart } from '../deploy/helm.ts';
import { runKubectl } from '../kubectl/kubectl.ts';
import { repoRoot, runCli, runMain } from '../support/cli.ts';
import { installOpenReportsCrds } from './openreports-crds.ts';
import { describeWithControlPlane } from './real-cluster.ts';

const values = {
  plugins: { DenyServiceExternalIPs: { enabled: true } },
  audit: { schedule: { enabled: true } },
};
const withExternalIp = (namespace: string) => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'web', namespace },
  spec: { ports: [{ port: 80 }], externalIPs: ['192.0.2.10'] },
});

interface PodSpec {
  serviceAccountName: string;
  containers: Array<{ command: string[]; args: string[] }>;
}
type ClusterRole = KubeObject & { rules: Array<{ apiGroups: string[]; resources: string[]; verbs: string[] }> };
type CronJob = KubeObject & { spec: { jobTemplate: { spec: { template: { spec: PodSpec } } } } };
interface StoredReport {
  metadata: {
    namespace: string;
    name: string;
    labels?: Record<string, string>;
    managedFields?: Array<{ manager: string; operation: string }>;
  };
  summary?: Record<string, number>;
  results?: Array<{ policy: string; result: string; resources: Array<{ kind: string; name: string }> }>;
}

describeWithControlPlane('audit --apply-reports as the chart schedules it', () => {
  let controlPlane: ControlPlane;
  let scratch: string;
  let args: string[];
  let cronJobContainer: { command: string[] };
  let accountKubeconfig: string;
  let account: string;
  let role: ClusterRole;
  const kubectl = async (...kubectlArgs: string[]) => {
    const result = await runKubectl(scratch, controlPlane.kubeconfigPath, kubectlArgs, { kubectl: controlPlane.binaries.kubectl });
    expect(result.code, `${kubectlArgs.join(' ')}: ${result.stderr}`).toBe(0);
    return result.stdout;
  };
  const apply = async (...objects: object[]) => {
    const file = join(scratch, `apply-${Date.now()}-${Math.random().toString(36).slice(2)}.yaml`);
    await writeFile(file, objects.map((o) => stringify(o)).join('---\n'));
    return kubectl('apply', '-f', file);
  };
  const reports = async () => {
    const list = JSON.parse(await kubectl('get', 'reports.openreports.io', '-A', '-o', 'json', '--show-managed-fields')) as {
      items: StoredReport[];
    };
    return list.items;
  };
  /** Waits until RBAC answers as wanted whether the audit's ServiceAccount may do verb on resource (cluster-wide). */
  const rbacSays = async (verb: string, resource: string, allowed: boolean) => {
    for (let tries = 0; ; tries++) {
      const can = await runKubectl(scratch, controlPlane.kubeconfigPath, ['auth', 'can-i', verb, resource, '-A', '--as', account], {
        kubectl: controlPlane.binaries.kubectl,
      });
      if ((can.code === 0) === allowed) return;
      if (tries > 50) throw new Error(`RBAC did not settle: ${verb} ${resource} should be ${allowed ? 'allowed' : 'forbidden'}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  const names = (items: StoredReport[]) => items.map((r) => `${r.metadata.namespace}/${r.metadata.name}`).sort();

  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'admission-chain-audit-apply-'));
    controlPlane = await startControlPlane();
    await installOpenReportsCrds(kubectl);

    const objects = renderChart({ values });
    const cronJob = only<CronJob>(objects, 'CronJob');
    const pod = cronJob.spec.jobTemplate.spec.template.spec;
    // The projection reads a Deployment's pod: hand it the CronJob's.
    const asDeployment = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'audit' }, spec: { template: { spec: pod } } };
    const mounts = await projectConfigMapMounts([...objects.filter((o) => o.kind !== 'Deployment'), asDeployment], join(scratch, 'pod'));
    cronJobContainer = pod.containers[0]!;
    args = pod.containers[0]!.args.map((arg) => {
      const at = arg.indexOf('=');
      return at < 0 || !arg.slice(at + 1).startsWith('/') ? arg : `${arg.slice(0, at + 1)}${mounts.localPath(arg.slice(at + 1))}`;
    });
    // The chart's RBAC for the audit, and a client certificate for its ServiceAccount's user name.
    role = only<ClusterRole>(objects, 'ClusterRole', cronJob.metadata.name);
    await apply(role, only(objects, 'ClusterRoleBinding', cronJob.metadata.name));
    account = `system:serviceaccount:${defaultNamespace}:${pod.serviceAccountName}`;
    accountKubeconfig = join(scratch, 'audit.kubeconfig');
    await writeFile(accountKubeconfig, await controlPlane.kubeconfigFor(account, ['system:serviceaccounts']));

    await apply(
      ...['team-a', 'team-b'].map((name) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } })),
      // Opted out of the webhook: never sent to it, so never reported on.
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'opted-out', labels: { 'admission-chain.io/disabled': 'true' } } },
      withExternalIp('team-a'),
      withExternalIp('opted-out'),
      withExternalIp('kube-system'),
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'app', namespace: 'team-b' },
        spec: { containers: [{ name: 'app', image: 'busybox:1.36', imagePullPolicy: 'IfNotPresent' }] },
      },
      // Another tool's report, in a namespace ours will come and go in.
      { apiVersion: 'openreports.io/v1alpha1', kind: 'Report', metadata: { name: 'other', namespace: 'team-a' }, source: 'other-tool' },
    );
  }, 120_000);
  afterAll(async () => {
    await controlPlane?.stop();
    if (scratch !== undefined) await rm(scratch, { recursive: true, force: true });
  });

  it('applies one report per namespace with findings, as the ServiceAccount, under its own field manager', async () => {
    const run = await runMain(['audit', ...args, '--kubeconfig', accountKubeconfig]);
    // One denial of three Services with external IPs: the opted-out and kube-system ones are exempt. (How many objects
    // depends on when kube-apiserver's own `kubernetes` Service appears.)
    expect(run.stderr).toMatch(/^admission-chain: audited \d+ objects: 1 denied, 0 with warnings, 1 changed; \d+ skipped\n$/);
    expect(run.stdout).toBe('Report team-a/admission-chain applied\nReport team-b/admission-chain applied\n');
    expect(run.code).toBe(0);
    const stored = await reports();
    expect(names(stored)).toEqual(['team-a/admission-chain', 'team-a/other', 'team-b/admission-chain']);
    const ours = (namespace: string) => stored.find((r) => r.metadata.namespace === namespace && r.metadata.name === 'admission-chain')!;
    expect(ours('team-a').results?.map((r) => `${r.policy} ${r.result} ${r.resources[0]?.kind} ${r.resources[0]?.name}`)).toEqual([
      'DenyServiceExternalIPs fail Service web',
    ]);
    expect(ours('team-a').summary).toEqual({ pass: 0, fail: 1, warn: 0, error: 0, skip: 0 });
    expect(ours('team-b').results?.map((r) => `${r.policy} ${r.result}`)).toEqual(['AlwaysPullImages pass']);
    expect(ours('team-a').metadata.labels).toEqual({ 'app.kubernetes.io/managed-by': 'admission-chain' });
    expect(ours('team-a').metadata.managedFields?.map((f) => `${f.manager} ${f.operation}`)).toEqual(['admission-chain Apply']);
  });

  it("runs as the image does: the CronJob's command from the production bundle, outside the checkout", async () => {
    const app = join(scratch, 'app');
    await bundle(join(app, outDir));
    await copyFile(join(repoRoot, 'package.json'), join(app, 'package.json'));
    const { command } = cronJobContainer;
    expect(command.slice(0, 2)).toEqual(['node', `${outDir}/cli/run.js`]);
    const run = await runCli([...command.slice(2), ...args, '--kubeconfig', accountKubeconfig], {
      entry: [join(app, command[1]!)],
      cwd: app,
      timeoutMs: 60_000,
    });
    expect(run.stdout).toBe('Report team-a/admission-chain applied\nReport team-b/admission-chain applied\n');
    expect(run.code).toBe(0);
  }, 120_000);

  it('applies again in place, and deletes the report of a namespace with nothing left to report, leaving other reports alone', async () => {
    const again = await runMain(['audit', ...args, '--kubeconfig', accountKubeconfig]);
    expect(again.code).toBe(0);
    expect(names(await reports())).toEqual(['team-a/admission-chain', 'team-a/other', 'team-b/admission-chain']);

    await kubectl('delete', 'service', 'web', '-n', 'team-a');
    const fixed = await runMain(['audit', ...args, '--kubeconfig', accountKubeconfig]);
    expect(fixed.stdout).toBe('Report team-b/admission-chain applied\nReport team-a/admission-chain deleted\n');
    expect(fixed.code).toBe(0);
    expect(names(await reports())).toEqual(['team-a/other', 'team-b/admission-chain']);
  });

  it('needs each verb it is granted on the reports', async () => {
    const audit = () => runMain(['audit', ...args, '--kubeconfig', accountKubeconfig]);
    /** The chart's role without one verb on the reports, in force once RBAC says so. */
    const grantAllBut = async (verb: string | undefined) => {
      const rules = role.rules.map((r) =>
        r.apiGroups.includes('openreports.io') ? { ...r, verbs: r.verbs.filter((v) => v !== verb) } : r,
      );
      await apply({ ...role, rules });
      for (const check of ['create', 'patch', 'list', 'delete']) await rbacSays(check, 'reports.openreports.io', check !== verb);
    };
    const forbidden = (verb: string, scope: string) =>
      `User "${account}" cannot ${verb} resource "reports" in API group "openreports.io" ${scope}`;
    try {
      // team-a has a finding again and no report of ours: its report is created.
      await apply(withExternalIp('team-a'));
      await grantAllBut('create');
      expect((await audit()).stderr).toContain(forbidden('create', 'in the namespace "team-a"'));
      await grantAllBut('patch');
      expect((await audit()).stderr).toContain(forbidden('patch', 'in the namespace "team-a"'));
      await grantAllBut('list');
      const unlisted = await audit();
      expect(unlisted.stderr).toContain(forbidden('list', 'at the cluster scope'));
      expect(unlisted.code).toBe(1);
      // team-a's report now exists; fixed, it must be deleted.
      await kubectl('delete', 'service', 'web', '-n', 'team-a');
      await grantAllBut('delete');
      expect((await audit()).stderr).toContain(forbidden('delete', 'in the namespace "team-a"'));
    } finally {
      await grantAllBut(undefined);
    }
    const granted = await audit();
    expect(granted.stdout).toBe('Report team-b/admission-chain applied\nReport team-a/admission-chain deleted\n');
    expect(granted.code).toBe(0);
  });

  it('says which CRDs to install when the cluster does not serve the report API, and exits 1', async () => {
    const older = args.map((a) => (a.startsWith('--report-api=') ? '--report-api=wgpolicyk8s.io/v1alpha2' : a));
    const run = await runMain(['audit', ...older, '--kubeconfig', controlPlane.kubeconfigPath]);
    expect(run.stderr).toContain(
      "admission-chain: cannot apply wgpolicyk8s.io/v1alpha2 PolicyReport: the cluster does not serve it; install that report API's CustomResourceDefinitions, or choose another with --report-api\n",
    );
    expect(run.code).toBe(1);
  });

  it('applies the older wgpolicyk8s.io PolicyReports where that API is installed, under the role the chart renders for it', async () => {
    await kubectl('apply', '-f', 'test/control-plane/fixtures/wgpolicyk8s-crds.yaml');
    await kubectl(
      'wait',
      '--for',
      'condition=established',
      '--timeout=30s',
      'crd/policyreports.wgpolicyk8s.io',
      'crd/clusterpolicyreports.wgpolicyk8s.io',
    );
    const older = renderChart({ values: { ...values, audit: { schedule: { enabled: true, reportApi: 'wgpolicyk8s.io/v1alpha2' } } } });
    const olderRole = only<ClusterRole>(older, 'ClusterRole', role.metadata.name);
    await apply(olderRole);
    for (const verb of ['create', 'patch', 'list', 'delete']) {
      await rbacSays(verb, 'policyreports.wgpolicyk8s.io', true);
      await rbacSays(verb, 'reports.openreports.io', false);
    }
    const olderArgs = only<CronJob>(older, 'CronJob').spec.jobTemplate.spec.template.spec.containers[0]!.args;
    expect(olderArgs).toContain('--report-api=wgpolicyk8s.io/v1alpha2');
    const withOlder = args.map((a) => (a.startsWith('--report-api=') ? '--report-api=wgpolicyk8s.io/v1alpha2' : a));
    const run = await runMain(['audit', ...withOlder, '--kubeconfig', accountKubeconfig]);
    expect(run.stdout).toBe('PolicyReport team-b/admission-chain applied\n');
    expect(run.code).toBe(0);
    const stored = JSON.parse(await kubectl('get', 'policyreports.wgpolicyk8s.io', '-A', '-o', 'json')) as { items: StoredReport[] };
    expect(names(stored.items)).toEqual(['team-b/admission-chain']);
    expect(stored.items[0]!.results?.map((r) => `${r.policy} ${r.result}`)).toEqual(['AlwaysPullImages pass']);
  });

  it('refuses --apply-reports without -o policyreport, or offline', async () => {
    const table = await runMain(['audit', '--apply-reports', '--kubeconfig', controlPlane.kubeconfigPath]);
    expect(table).toMatchObject({
      code: 2,
      stdout: '',
      stderr: 'admission-chain: --apply-reports applies reports: give -o policyreport\n',
    });
    const offline = await runMain([
      'audit',
      '-o',
      'policyreport',
      '--apply-reports',
      '--cluster-state',
      'test/fixtures/audit/cluster-state.yaml',
      'test/fixtures/audit/tree',
    ]);
    expect(offline).toMatchObject({
      code: 2,
      stderr: 'admission-chain: --apply-reports writes to the audited cluster: not with --cluster-state\n',
    });
    // Reports of some manifests would replace the cluster's own, and delete those of every other namespace.
    const manifests = await runMain([
      'audit',
      '-o',
      'policyreport',
      '--apply-reports',
      '--kubeconfig',
      controlPlane.kubeconfigPath,
      'test/fixtures/audit/tree',
    ]);
    expect(manifests).toMatchObject({
      code: 2,
      stdout: '',
      stderr: "admission-chain: --apply-reports writes the cluster's own reports: audit the cluster, not PATHS\n",
    });
  });
});
