// `audit` of a real kube-apiserver: seeded (with kubectl) with the offline suite's GitOps tree —
// workloads some plugins reject, a Service with an external IP, a ConfigMap that blocks its
// owner's deletion, a pod its ReplicaSet made — and with more pods than one LIST page holds. The
// audit reads it through the cluster backend (paged with a small --chunk-size) and must list
// exactly those objects with exactly those findings; the objects as kubectl reads them back,
// audited offline, must give the same answers. No controller-manager runs, so nothing but the
// seeds is there.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { type ControlPlane, startControlPlane } from '../../control-plane/control-plane.ts';
import { runKubectl } from '../kubectl/kubectl.ts';
import type { AuditOutput, AuditResult } from '../support/audit-output.ts';
import { runMain } from '../support/cli.ts';
import { installOpenReportsCrds } from './openreports-crds.ts';
import { describeWithControlPlane } from './real-cluster.ts';

const fixtures = 'test/fixtures/audit';
const plugins = [
  'LimitPodHardAntiAffinityTopology',
  'ServiceAccount',
  'PodNodeSelector',
  'PodTolerationRestriction',
  'RuntimeClass',
  'DenyServiceExternalIPs',
].join(',');
const bulkPods = 23;
const resources =
  'pods,services,replicationcontrollers,deployments,replicasets,statefulsets,daemonsets,jobs,cronjobs,configmaps,persistentvolumeclaims';

type Output = { results: AuditResult[]; summary: AuditOutput['summary'] };

/** What the answers say, without what differs by run: the source, the explanation's wording, random token names, the CronJob's minute. */
function answers(output: Output): unknown[] {
  return output.results
    .map((r) => ({
      object: `${r.kind} ${r.namespace}/${r.name}`,
      owner: r.owner,
      findings: r.findings.map((f) => ({ plugin: f.plugin, result: f.result, object: f.object, message: f.message, patch: f.patch })),
    }))
    .sort((a, b) => (a.object < b.object ? -1 : 1))
    .map((a) =>
      JSON.parse(
        JSON.stringify(a)
          .replace(/kube-api-access-[a-z0-9]{5}/g, 'kube-api-access-?')
          .replace(/report-\d+/g, 'report-?'),
      ),
    );
}

const findingsOf = (output: Output) =>
  Object.fromEntries(
    output.results.map((r) => [`${r.kind} ${r.namespace}/${r.name}`, r.findings.map((f) => `${f.plugin} ${f.result}`).sort()]),
  );

describeWithControlPlane('audit of a real kube-apiserver', () => {
  let controlPlane: ControlPlane;
  let scratch: string;
  const kubectl = async (...args: string[]) => {
    const result = await runKubectl(scratch, controlPlane.kubeconfigPath, args, { kubectl: controlPlane.binaries.kubectl });
    // kubectl apply warns of the default Namespace it did not create; anything else fails.
    expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
    return result.stdout;
  };

  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'admission-chain-audit-'));
    controlPlane = await startControlPlane();
    await kubectl('apply', '-f', `${fixtures}/cluster-state.yaml`);
    await kubectl('apply', '-R', '-f', `${fixtures}/tree`);
    const bulk = [
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bulk' } },
      { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: 'bulk' } },
      ...Array.from({ length: bulkPods }, (_, i) => ({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: `p-${String(i).padStart(2, '0')}`, namespace: 'bulk' },
        spec: { containers: [{ name: 'c', image: 'busybox:1.36', imagePullPolicy: 'IfNotPresent' }] },
      })),
    ];
    await writeFile(join(scratch, 'bulk.yaml'), bulk.map((o) => stringify(o)).join('---\n'));
    await kubectl('apply', '-f', join(scratch, 'bulk.yaml'));
  }, 120_000);
  afterAll(async () => {
    await controlPlane?.stop();
    if (scratch !== undefined) await rm(scratch, { recursive: true, force: true });
  });

  /** `audit` of the cluster as the user "auditor". */
  const auditAsAuditor = (...args: string[]) =>
    runMain(['audit', '--kubeconfig', controlPlane.kubeconfigPath, '--user', 'auditor', ...args]);
  const auditCluster = async (...args: string[]) => {
    const run = await auditAsAuditor('-o', 'json', ...args);
    return { ...run, output: JSON.parse(run.stdout) as Output };
  };

  it('lists exactly the seeded objects some plugin would deny or change, paging with a small --chunk-size', async () => {
    const { code, output, stderr } = await auditCluster('--enable-admission-plugins', plugins, '--chunk-size', '4');
    expect(code).toBe(0);
    const bulk = Object.fromEntries(
      Array.from({ length: bulkPods }, (_, i) => [
        `Pod bulk/p-${String(i).padStart(2, '0')}`,
        ['AlwaysPullImages mutate', 'ServiceAccount mutate'],
      ]),
    );
    expect(findingsOf(output)).toEqual({
      ...bulk,
      'ConfigMap default/web-settings': ['OwnerReferencesPermissionEnforcement deny'],
      'CronJob team-a/report': ['PodTolerationRestriction deny'],
      'DaemonSet default/agent': ['LimitPodHardAntiAffinityTopology deny', 'ServiceAccount mutate'],
      'Deployment default/web': ['AlwaysPullImages mutate', 'ServiceAccount mutate'],
      'Job default/migrate': ['ServiceAccount deny'],
      'Pod default/bare': ['ServiceAccount mutate'],
      'ReplicaSet default/orphan': ['ServiceAccount mutate'],
      'ReplicationController default/old': ['RuntimeClass deny'],
      'Service default/web': ['DenyServiceExternalIPs deny'],
      'StatefulSet team-a/db': ['PodNodeSelector deny'],
    });
    // Skipped: the pod the ReplicaSet made, and the ConfigMaps without owner references (kube-apiserver's own in
    // kube-system). The `kubernetes` Service and the plain one are audited and admitted.
    const configMaps = (await kubectl('get', 'configmaps', '-A', '-o', 'name')).trim().split('\n');
    expect(configMaps).toContain('configmap/web-settings');
    const skipped = 1 + configMaps.length - 1;
    expect(output.summary).toMatchObject({ objects: 12 + bulkPods, denied: 7, mutated: 4 + bulkPods, skipped, errors: 0 });
    expect(stderr).toMatch(
      new RegExp(`^admission-chain: audited ${12 + bulkPods} objects \\(and 9 objects their controllers would create\\): 7 denied`),
    );
    expect(output.results.every((r) => r.source === 'cluster')).toBe(true);
  });

  it('gives the answers offline that it gives on the cluster, for the objects as the cluster holds them', async () => {
    const cluster = await auditCluster('--enable-admission-plugins', plugins);
    const objects = join(scratch, 'objects.json');
    await writeFile(objects, await kubectl('get', resources, '-A', '-o', 'json'));
    const state = join(scratch, 'state.json');
    await writeFile(state, await kubectl('get', 'namespaces,serviceaccounts,runtimeclasses', '-A', '-o', 'json'));
    const offline = await runMain([
      'audit',
      '--cluster-state',
      state,
      objects,
      '--user',
      'auditor',
      '-o',
      'json',
      '--enable-admission-plugins',
      plugins,
    ]);
    expect(offline.stderr).toBe(cluster.stderr);
    const offlineOutput = JSON.parse(offline.stdout) as Output;
    expect(answers(offlineOutput)).toEqual(answers(cluster.output));
    expect(offlineOutput.summary).toEqual(cluster.output.summary);
    // The other outputs agree too: the table (names and messages only) exactly, YAML as the JSON.
    const table = (args: string[]) => runMain(['audit', ...args, '--user', 'auditor', '--enable-admission-plugins', plugins]);
    const clusterTable = await table(['--kubeconfig', controlPlane.kubeconfigPath]);
    expect(clusterTable.stdout).toMatch(/^NAMESPACE +OWNER +PLUGIN +RESULT +OBJECTS +DETAIL\n/);
    expect(clusterTable.stdout.replace(/report-\d+/g, 'report-?')).toBe(
      (await table(['--cluster-state', state, objects])).stdout.replace(/report-\d+/g, 'report-?'),
    );
    const yaml = await auditAsAuditor('--enable-admission-plugins', plugins, '-o', 'yaml');
    expect(answers(parse(yaml.stdout) as Output)).toEqual(answers(cluster.output));
  });

  it("audits manifests against the live cluster's lookups when given PATHS without --cluster-state", async () => {
    const { code, output } = await auditCluster(`${fixtures}/tree/apps/stateful.json`, '--enable-admission-plugins', 'PodNodeSelector');
    expect(code).toBe(0);
    // team-a's node selector comes from the Namespace the cluster holds.
    expect(output.results).toEqual([
      expect.objectContaining({
        source: `${fixtures}/tree/apps/stateful.json: item 1`,
        kind: 'StatefulSet',
        findings: [expect.objectContaining({ plugin: 'PodNodeSelector', result: 'deny', object: 'Pod team-a/db-0' })],
      }),
    ]);
    expect(output.summary).toMatchObject({ objects: 2, errors: 0 });
  });

  it('writes reports the API server accepts under the documented schema, one per namespace', async () => {
    await installOpenReportsCrds(kubectl);
    const run = await auditAsAuditor('--enable-admission-plugins', plugins, '-o', 'policyreport');
    expect(run.code).toBe(0);
    const reports = join(scratch, 'reports.yaml');
    await writeFile(reports, run.stdout);
    // kubectl validates strictly: a field the schema does not have is an error, not dropped.
    await kubectl('apply', '--validate=strict', '-f', reports);
    const stored = JSON.parse(await kubectl('get', 'reports.openreports.io', '-A', '-o', 'json')) as {
      items: Array<{
        metadata: { namespace: string; name: string };
        summary: Record<string, number>;
        results: Array<{ policy: string; result: string }>;
      }>;
    };
    expect(stored.items.map((r) => `${r.metadata.namespace}/${r.metadata.name}`)).toEqual([
      'bulk/admission-chain',
      'default/admission-chain',
      'team-a/admission-chain',
    ]);
    const teamA = stored.items[2]!;
    expect(teamA.results.map((r) => `${r.policy} ${r.result}`).sort()).toEqual(['PodNodeSelector fail', 'PodTolerationRestriction fail']);
    expect(teamA.summary).toEqual({ pass: 0, fail: 2, warn: 0, error: 0, skip: 0 });
  });

  it('--fail-on deny exits 1 on the cluster; a resource it may not list is an error and the rest are audited', async () => {
    expect((await auditCluster('--enable-admission-plugins', plugins, '--fail-on', 'deny')).code).toBe(1);
    // A user who may list pods and nothing else.
    await kubectl('create', 'clusterrole', 'pod-lister', '--verb=list', '--resource=pods');
    await kubectl('create', 'clusterrolebinding', 'pod-lister', '--clusterrole=pod-lister', '--user=pod-lister');
    const kubeconfig = join(scratch, 'pod-lister.kubeconfig');
    await writeFile(kubeconfig, await controlPlane.kubeconfigFor('pod-lister'));
    const run = await runMain(['audit', '--kubeconfig', kubeconfig, '--plugins', 'AlwaysPullImages', '-o', 'json']);
    expect(run.code).toBe(1);
    const output = JSON.parse(run.stdout) as { results: Array<AuditResult | { error: string }>; summary: Record<string, number> };
    expect(output.summary).toMatchObject({ objects: bulkPods + 1, errors: 10 });
    expect(run.stderr).toContain(
      'admission-chain: cluster: cannot list services: services is forbidden: User "pod-lister" cannot list resource "services" in API group "" at the cluster scope',
    );
  });
});
