// `audit` offline: a GitOps tree (test/fixtures/audit/tree: directories, multi-document YAML, a
// JSON List) against a cluster-state file, every plugin that can deny enabled. Each workload kind
// is audited with the pods its controllers would create, as those controllers; each finding names
// its plugin and upstream's message. In-process through main().
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments, stringify } from 'yaml';
import type { AuditOutput, AuditResult } from '../support/audit-output.ts';
import { runMain } from '../support/cli.ts';
import { scratchFiles } from '../support/scratch-files.ts';

const fixtures = 'test/fixtures/audit';
const state = `${fixtures}/cluster-state.yaml`;
const tree = `${fixtures}/tree`;
const denyingPlugins = [
  'LimitPodHardAntiAffinityTopology',
  'ServiceAccount',
  'PodNodeSelector',
  'PodTolerationRestriction',
  'RuntimeClass',
  'DenyServiceExternalIPs',
].join(',');
const { write } = scratchFiles('audit');

type Result = AuditResult;
type Output = AuditOutput;

async function audit(args: string[], options: { stdin?: string } = {}) {
  const run = await runMain(['audit', '--cluster-state', state, ...args], options);
  return run;
}

async function auditJson(...args: string[]) {
  const run = await audit([...args, '-o', 'json']);
  const output = JSON.parse(run.stdout) as Output;
  const results = output.results.filter((r): r is Result => !('error' in r));
  const byName = (kind: string, name: string) => results.find((r) => r.kind === kind && r.name === name);
  return { ...run, output, results, byName };
}

const sa = (name: string) => `system:serviceaccount:kube-system:${name}`;

describe('audit of a GitOps tree, every plugin that can deny enabled', () => {
  it('denies each workload kind by the plugin its pods break, naming the pod, its creator and upstream message', async () => {
    const { code, byName } = await auditJson(tree, '--enable-admission-plugins', denyingPlugins);
    expect(code).toBe(0);
    const denial = (kind: string, name: string) => byName(kind, name)?.findings.find((f) => f.result === 'deny');
    expect(denial('DaemonSet', 'agent')).toMatchObject({
      plugin: 'LimitPodHardAntiAffinityTopology',
      object: 'Pod default/agent-',
      user: sa('daemon-set-controller'),
      message: expect.stringContaining('has TopologyKey topology.kubernetes.io/zone but only key kubernetes.io/hostname is allowed'),
    });
    expect(denial('StatefulSet', 'db')).toMatchObject({
      plugin: 'PodNodeSelector',
      object: 'Pod team-a/db-0',
      user: sa('statefulset-controller'),
      message: 'pods "db-0" is forbidden: pod node label selector conflicts with its namespace node label selector',
    });
    expect(denial('Job', 'migrate')).toMatchObject({
      plugin: 'ServiceAccount',
      object: 'Pod default/migrate-',
      user: sa('job-controller'),
      message: 'pods "migrate-" is forbidden: error looking up service account default/migrator: serviceaccount "migrator" not found',
    });
    // The CronJob's Job, then that Job's pod: the pod is what is denied.
    expect(denial('CronJob', 'report')).toMatchObject({
      plugin: 'PodTolerationRestriction',
      user: sa('job-controller'),
      message: expect.stringContaining('conflict with its namespace whitelist'),
    });
    expect(denial('CronJob', 'report')?.object).toMatch(/^Pod team-a\/report-\d+-$/);
    expect(denial('ReplicationController', 'old')).toMatchObject({
      plugin: 'RuntimeClass',
      object: 'Pod default/old-',
      user: sa('replication-controller'),
      message: `pods "old-" is forbidden: pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead`,
    });
    expect(denial('Service', 'web')).toMatchObject({
      plugin: 'DenyServiceExternalIPs',
      code: 403,
      message: 'services "web" is forbidden: Use of external IPs is denied by admission control',
    });
    expect(denial('Service', 'web')).not.toHaveProperty('object');
  });

  it('denies the ConfigMap that blocks its owner’s deletion, with the explanation and the grant that would admit it', async () => {
    const { byName } = await auditJson(`${tree}/pods`);
    const configMap = byName('ConfigMap', 'web-settings')!;
    expect(configMap).toMatchObject({ namespace: 'default', owner: 'ConfigMap/web-settings', user: 'admin' });
    expect(configMap.findings).toEqual([
      expect.objectContaining({
        plugin: 'OwnerReferencesPermissionEnforcement',
        result: 'deny',
        mode: 'enforce',
        code: 403,
        message: expect.stringMatching(/^configmaps "web-settings" is forbidden: cannot set blockOwnerDeletion/),
        explanation: expect.arrayContaining([expect.stringContaining('may not update deployments/finalizers (apps) "web"')]),
      }),
    ]);
  });

  it('reports each plugin’s own change of what the controllers create: the Deployment’s pod pulls always', async () => {
    const { results, byName } = await auditJson(tree, '--enable-admission-plugins', denyingPlugins);
    const web = byName('Deployment', 'web')!;
    expect(web.owner).toBe('Deployment/web');
    const pull = web.findings.find((f) => f.plugin === 'AlwaysPullImages');
    expect(pull).toMatchObject({ result: 'mutate', user: sa('replicaset-controller') });
    expect(pull?.object).toMatch(/^Pod default\/web-[a-z0-9]+-$/);
    expect(pull?.patch).toEqual([{ op: 'replace', path: '/spec/containers/0/imagePullPolicy', value: 'Always' }]);
    const token = web.findings.find((f) => f.plugin === 'ServiceAccount');
    expect(token?.patch?.map((op) => op.path)).toEqual(expect.arrayContaining(['/spec/serviceAccountName', '/spec/volumes']));
    // Nothing the audit admits unchanged is listed: the Service without external IPs.
    expect(byName('Service', 'plain')).toBeUndefined();
    expect(results.every((r) => r.findings.length > 0)).toBe(true);
  });

  it('denies the Deployment by AlwaysPullImages when only validation runs, and says so under --fail-on deny', async () => {
    const { code, byName, stderr } = await auditJson(`${tree}/apps/web.yaml`, '--phase', 'validating', '--fail-on', 'deny');
    expect(code).toBe(1);
    const denial = byName('Deployment', 'web')?.findings.find((f) => f.result === 'deny');
    expect(denial).toMatchObject({ plugin: 'AlwaysPullImages', code: 500, user: sa('replicaset-controller') });
    expect(denial?.message).toMatch(/spec\.containers\[0\]\.imagePullPolicy: Unsupported value: "IfNotPresent"/);
    expect(stderr).toBe(
      'admission-chain: audited 3 objects (and 2 objects their controllers would create): 1 denied, 0 with warnings, 0 changed\n',
    );
  });

  it('counts every object read: audited, created from them, and skipped (a pod its audited ReplicaSet makes, a Namespace)', async () => {
    const { output, byName } = await auditJson(tree, '--enable-admission-plugins', denyingPlugins);
    expect(output.summary).toEqual({ objects: 11, created: 9, denied: 7, warned: 0, mutated: 4, skipped: 2, errors: 0 });
    expect(byName('Pod', 'orphan-x7k2p')).toBeUndefined();
    expect(byName('Namespace', 'extra')).toBeUndefined();
    expect(byName('ReplicaSet', 'orphan')?.findings.map((f) => f.object)).toEqual(['Pod default/orphan-']);
  });
});

describe('audit honours per-plugin exemptions', () => {
  const findings = (results: Result[]) => results.flatMap((r) => r.findings.map((f) => `${r.owner} ${f.plugin} ${f.result}`)).sort();

  it.each<[string, Record<string, unknown[]>, string]>([
    ['LimitPodHardAntiAffinityTopology', { namespaces: ['default'] }, 'DaemonSet/agent LimitPodHardAntiAffinityTopology deny'],
    ['ServiceAccount', { serviceAccounts: ['kube-system/job-controller'] }, 'Job/migrate ServiceAccount deny'],
    ['AlwaysPullImages', { namespaces: ['default'] }, 'Deployment/web AlwaysPullImages mutate'],
    ['PodNodeSelector', { namespaces: ['team-a'] }, 'StatefulSet/db PodNodeSelector deny'],
    ['PodNodeSelector', { namespaceSelectors: [{ matchLabels: { team: 'a' } }] }, 'StatefulSet/db PodNodeSelector deny'],
    [
      'PodTolerationRestriction',
      { users: ['system:serviceaccount:kube-system:job-controller'] },
      'CronJob/report PodTolerationRestriction deny',
    ],
    ['OwnerReferencesPermissionEnforcement', { users: ['admin'] }, 'ConfigMap/web-settings OwnerReferencesPermissionEnforcement deny'],
    ['RuntimeClass', { groups: ['system:serviceaccounts:kube-system'] }, 'ReplicationController/old RuntimeClass deny'],
    ['DenyServiceExternalIPs', { namespaces: ['default'] }, 'Service/web DenyServiceExternalIPs deny'],
  ])('%s exempted (%j): its finding goes, every other stays', async (plugin, rule, gone) => {
    const baseline = findings((await auditJson(tree, '--enable-admission-plugins', denyingPlugins)).results);
    expect(baseline).toContain(gone);
    const file = write(
      `exemptions-${plugin}.yaml`,
      stringify({ apiVersion: 'admission-chain.io/v1alpha1', kind: 'PluginExemptions', plugins: [{ name: plugin, ...rule }] }),
    );
    const exempted = await auditJson(tree, '--enable-admission-plugins', denyingPlugins, '--plugin-exemptions-file', file);
    expect(exempted.code).toBe(0);
    const after = findings(exempted.results);
    expect(after).not.toContain(gone);
    expect(after).toEqual(expect.arrayContaining(baseline.filter((f) => f !== gone)));
    // What is new is the same object's: past the denial, the plugins after it run (ServiceAccount's token volume).
    const owner = gone.split(' ')[0]!;
    expect(after.filter((f) => !baseline.includes(f)).every((f) => f.startsWith(`${owner} `))).toBe(true);
  });
});

describe('audit output', () => {
  it('prints a table by namespace, owner and plugin by default, and the count on stderr', async () => {
    const { code, stdout, stderr } = await audit([tree, '--enable-admission-plugins', denyingPlugins]);
    expect(code).toBe(0);
    const lines = stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^NAMESPACE +OWNER +PLUGIN +RESULT +OBJECTS +DETAIL$/);
    const rows = lines.slice(1).map((line) => line.split(/ {2,}/));
    expect(rows).toContainEqual([
      'default',
      'Deployment/web',
      'AlwaysPullImages',
      'mutate',
      '1',
      'replace /spec/containers/0/imagePullPolicy',
    ]);
    expect(rows).toContainEqual([
      'default',
      'Service/web',
      'DenyServiceExternalIPs',
      'deny',
      '1',
      'services "web" is forbidden: Use of external IPs is denied by admission control',
    ]);
    expect(rows.map((r) => r.slice(0, 4))).toContainEqual(['team-a', 'StatefulSet/db', 'PodNodeSelector', 'deny']);
    // Sorted by namespace, then owner.
    const keys = rows.map((r) => `${r[0]} ${r[1]} ${r[2]}`);
    expect(keys).toEqual([...keys].sort());
    expect(stderr).toBe(
      'admission-chain: audited 11 objects (and 9 objects their controllers would create): 7 denied, 0 with warnings, 4 changed; 2 skipped\n',
    );
  });

  it('groups the pods of one owner it does not expand into one row that counts them', async () => {
    const pod = (i: number) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: `worker-${i}`,
        namespace: 'default',
        ownerReferences: [{ apiVersion: 'example.com/v1', kind: 'Pool', name: 'workers', uid: 'u-1', controller: true }],
      },
      spec: { containers: [{ name: 'w', image: 'worker:1', imagePullPolicy: 'IfNotPresent' }] },
    });
    const file = write('workers.yaml', [1, 2, 3].map((i) => stringify(pod(i))).join('---\n'));
    const { stdout } = await audit([file]);
    expect(stdout.trimEnd().split('\n').slice(1)).toEqual([
      expect.stringMatching(/^default +Pool\/workers +AlwaysPullImages +mutate +3 +replace \/spec\/containers\/0\/imagePullPolicy$/),
    ]);
  });

  it('lists what could not be audited under the table, by source', async () => {
    const { code, stdout } = await audit([`${tree}/pods`, `${fixtures}/broken`]);
    expect(code).toBe(1);
    const [findings, errors] = stdout.trimEnd().split('\n\n');
    expect(findings).toMatch(/^NAMESPACE /);
    expect(errors!.split('\n')).toEqual([
      expect.stringMatching(/^SOURCE +ERROR$/),
      expect.stringMatching(new RegExp(`^${fixtures}/broken/bad.yaml +not valid JSON or YAML: .* at line 4, column 1$`)),
    ]);
  });

  it('says so when nothing would be denied, warned about or changed', async () => {
    const { code, stdout } = await audit([
      `${tree}/apps/web.yaml`,
      '--plugins',
      'DenyServiceExternalIPs',
      '--disable-admission-plugins',
      '',
    ]);
    expect(code).toBe(0);
    expect(stdout).toContain('DenyServiceExternalIPs');
    const file = write(
      'clean.yaml',
      stringify({ apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: { ports: [{ port: 80 }] } }),
    );
    const clean = await audit([file]);
    expect(clean.stdout).toBe('no audited object would be denied, warned about or changed\n');
  });

  it('writes the same document as YAML', async () => {
    // Not ServiceAccount: its token volume's name is random, different in each run.
    const args = [tree, '--enable-admission-plugins', denyingPlugins.replace('ServiceAccount,', '')];
    const json = JSON.parse((await audit([...args, '-o', 'json'])).stdout) as Output;
    const yaml = parse((await audit([...args, '-o', 'yaml'])).stdout) as Output;
    expect(yaml).toEqual(json);
    // Files in name order: apps/stateful.json before apps/web.yaml.
    expect(json.results.map((r) => (r as Result).owner)).toEqual([
      'StatefulSet/db',
      'DaemonSet/agent',
      'Deployment/web',
      'Service/web',
      'CronJob/report',
      'ReplicationController/old',
      'ConfigMap/web-settings',
    ]);
  });

  it('writes valid JSON and YAML with no results', async () => {
    const file = write('empty-results.yaml', stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'n' } }));
    const json = JSON.parse((await audit([file, '-o', 'json'])).stdout) as Output;
    expect(json).toEqual({ results: [], summary: { objects: 0, created: 0, denied: 0, warned: 0, mutated: 0, skipped: 1, errors: 0 } });
    expect(parse((await audit([file, '-o', 'yaml'])).stdout)).toEqual(json);
  });

  it('streams many objects into one JSON document', async () => {
    const pods = Array.from({ length: 200 }, (_, i) =>
      stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: `p-${i}`, namespace: 'default' },
        spec: { containers: [{ name: 'c', image: `img:${i}` }] },
      }),
    );
    const file = write('many.yaml', pods.join('---\n'));
    const { output } = await auditJson(file);
    expect(output.summary.objects).toBe(200);
    expect(output.results.map((r) => (r as Result).name)).toEqual(pods.map((_, i) => `p-${i}`));
  });
});

describe('audit -o policyreport', () => {
  interface Report {
    apiVersion: string;
    kind: string;
    metadata: { name: string; namespace?: string; labels: Record<string, string> };
    source?: string;
    summary: Record<string, number>;
    results: Array<{
      source: string;
      policy: string;
      result: string;
      scored: boolean;
      timestamp: { seconds: number; nanos: number };
      message: string;
      resources: Array<Record<string, string>>;
      properties?: Record<string, string>;
    }>;
  }
  const reports = async (...args: string[]) => {
    const run = await audit([...args, '-o', 'policyreport']);
    return { ...run, reports: parseAllDocuments(run.stdout).map((d) => d.toJS() as Report) };
  };

  it("writes one OpenReports Report per namespace, each finding a result: the plugin, fail, upstream's message, the object", async () => {
    const before = Math.floor(Date.now() / 1000);
    const {
      code,
      reports: written,
      stdout,
    } = await reports(`${tree}/apps`, '--enable-admission-plugins', 'DenyServiceExternalIPs,PodNodeSelector');
    expect(code).toBe(0);
    expect(stdout).not.toMatch(/[&*]a\d/);
    expect(written.map((r) => [r.apiVersion, r.kind, r.metadata.namespace, r.metadata.name])).toEqual([
      ['openreports.io/v1alpha1', 'Report', 'default', 'admission-chain'],
      ['openreports.io/v1alpha1', 'Report', 'team-a', 'admission-chain'],
    ]);
    const [defaults, teamA] = written;
    expect(defaults!.source).toBe('admission-chain');
    expect(defaults!.metadata.labels).toEqual({ 'app.kubernetes.io/managed-by': 'admission-chain' });
    expect(defaults!.summary).toEqual({ pass: 1, fail: 1, warn: 0, error: 0, skip: 0 });
    const denial = defaults!.results.find((r) => r.policy === 'DenyServiceExternalIPs')!;
    expect(denial).toMatchObject({
      source: 'admission-chain',
      result: 'fail',
      scored: true,
      message: 'services "web" is forbidden: Use of external IPs is denied by admission control',
      resources: [{ apiVersion: 'v1', kind: 'Service', namespace: 'default', name: 'web' }],
      properties: { mode: 'enforce', explanation: expect.stringContaining('spec.externalIPs 203.0.113.10') },
    });
    expect(denial.timestamp.nanos).toBe(0);
    expect(denial.timestamp.seconds).toBeGreaterThanOrEqual(before);
    expect(denial.timestamp.seconds).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000));
    // A change is a pass; what the controllers create is named in the message and the properties.
    const change = defaults!.results.find((r) => r.policy === 'AlwaysPullImages')!;
    expect(change).toMatchObject({
      result: 'pass',
      resources: [{ apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'web' }],
    });
    expect(change.message).toMatch(
      /^Pod default\/web-[a-z0-9]+- \(created by system:serviceaccount:kube-system:replicaset-controller\): admitted with changes: replace \/spec\/containers\/0\/imagePullPolicy$/,
    );
    expect(JSON.parse(change.properties!.patch!)).toEqual([{ op: 'replace', path: '/spec/containers/0/imagePullPolicy', value: 'Always' }]);
    expect(teamA!.results).toEqual([
      expect.objectContaining({
        policy: 'PodNodeSelector',
        result: 'fail',
        resources: [expect.objectContaining({ kind: 'StatefulSet', name: 'db' })],
      }),
    ]);
  });

  it('writes wgpolicyk8s.io/v1alpha2 PolicyReports with --report-api, the source in each result only', async () => {
    const { reports: written } = await reports(`${tree}/pods`, '--report-api', 'wgpolicyk8s.io/v1alpha2');
    expect(written.map((r) => [r.apiVersion, r.kind, r.metadata.namespace])).toEqual([
      ['wgpolicyk8s.io/v1alpha2', 'PolicyReport', 'default'],
    ]);
    expect(written[0]).not.toHaveProperty('source');
    expect(written[0]!.results).toEqual([
      expect.objectContaining({ source: 'admission-chain', policy: 'OwnerReferencesPermissionEnforcement', result: 'fail' }),
    ]);
  });

  it('a plugin in warn mode is an unscored warn; a cluster-scoped object goes in the ClusterReport', async () => {
    const clusterRole = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: {
        name: 'reader',
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'u-2', blockOwnerDeletion: true }],
      },
      rules: [],
    };
    const file = write('cluster-scoped.yaml', stringify(clusterRole));
    const { reports: written } = await reports(file, `${tree}/pods`, '--plugin-mode', 'OwnerReferencesPermissionEnforcement=warn');
    expect(written.map((r) => [r.kind, r.metadata.namespace])).toEqual([
      ['ClusterReport', undefined],
      ['Report', 'default'],
    ]);
    expect(written[0]!.results).toEqual([
      expect.objectContaining({
        policy: 'OwnerReferencesPermissionEnforcement',
        result: 'warn',
        scored: false,
        resources: [{ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: 'reader' }],
        properties: expect.objectContaining({ mode: 'warn' }),
      }),
    ]);
    expect(written[0]!.summary).toEqual({ pass: 0, fail: 0, warn: 1, error: 0, skip: 0 });
  });

  it('refuses a report API it does not write', async () => {
    const run = await audit([tree, '-o', 'policyreport', '--report-api', 'reports.x-k8s.io/v1beta2']);
    expect(run.code).toBe(2);
  });
});

describe('audit exit codes and input', () => {
  const warnMode = ['--plugin-mode', 'OwnerReferencesPermissionEnforcement=warn'];

  it('--fail-on deny exits 1 on a denial, never (the default) exits 0', async () => {
    expect((await audit([`${tree}/pods`])).code).toBe(0);
    expect((await audit([`${tree}/pods`, '--fail-on', 'never'])).code).toBe(0);
    expect((await audit([`${tree}/pods`, '--fail-on', 'deny'])).code).toBe(1);
  });

  it('a plugin in warn mode warns instead of denying: --fail-on warn exits 1, --fail-on deny 0', async () => {
    const { code, byName } = await auditJson(`${tree}/pods`, ...warnMode, '--fail-on', 'warn');
    expect(code).toBe(1);
    expect(byName('ConfigMap', 'web-settings')?.findings).toEqual([
      expect.objectContaining({ plugin: 'OwnerReferencesPermissionEnforcement', result: 'warn', mode: 'warn' }),
    ]);
    expect((await audit([`${tree}/pods`, ...warnMode, '--fail-on', 'deny'])).code).toBe(0);
  });

  it('reports an unreadable document by its source, audits the rest, and exits 1', async () => {
    const { code, output, stderr } = await auditJson(`${tree}/pods`, `${fixtures}/broken`);
    expect(code).toBe(1);
    expect(output.results).toContainEqual({
      source: `${fixtures}/broken/bad.yaml`,
      error: expect.stringMatching(/^not valid JSON or YAML/),
    });
    expect(output.summary).toMatchObject({ objects: 2, errors: 1 });
    expect(stderr).toContain(`admission-chain: ${fixtures}/broken/bad.yaml: not valid JSON or YAML`);
  });

  it('reports a document that is no Kubernetes object, or of a kind discovery does not know', async () => {
    const file = write(
      'odd.yaml',
      'just: text\n---\napiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w, ownerReferences: [{apiVersion: v1, kind: Pod, name: p, uid: u}]}\n',
    );
    const { code, output } = await auditJson(file);
    expect(code).toBe(1);
    expect(output.results).toEqual([
      { source: `${file}: document 1`, error: 'expected a Kubernetes object with apiVersion and kind' },
      {
        source: `${file}: document 2`,
        error: expect.stringMatching(/^cannot resolve example.com\/v1 Widget: no matches for kind "Widget"/),
      },
    ]);
  });

  it('reads stdin for "-"', async () => {
    const service = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'ip' }, spec: { externalIPs: ['198.51.100.1'] } };
    const { output } = await (async () => {
      const run = await audit(['-', '--enable-admission-plugins', 'DenyServiceExternalIPs', '-o', 'json'], { stdin: stringify(service) });
      return { output: JSON.parse(run.stdout) as Output };
    })();
    expect(output.results).toEqual([
      expect.objectContaining({
        source: 'stdin',
        kind: 'Service',
        namespace: 'default',
        findings: [expect.objectContaining({ result: 'deny' })],
      }),
    ]);
  });

  it('refuses bad usage with exit 2 and one line', async () => {
    const cases: Array<[string[], string]> = [
      [[], 'admission-chain: --cluster-state audits manifests: give PATHS or -f PATH\n'],
      [[tree, '--kubeconfig', 'k'], 'admission-chain: --cluster-state and --kubeconfig: give one backend, not both\n'],
      [[tree, '--chunk-size', '0'], 'admission-chain: --chunk-size "0": expected a whole number of at least 1\n'],
      [[tree, '--request-timeout', 'soon'], expect.stringMatching(/^admission-chain: --request-timeout: /) as unknown as string],
    ];
    for (const [args, message] of cases) {
      const run = await audit(args);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr).toEqual(message);
    }
  });

  it('an unreadable path or cluster state is an error, exit 1, no stack trace', async () => {
    const missing = await audit(['no-such-dir']);
    expect(missing).toMatchObject({ code: 1, stdout: '' });
    expect(missing.stderr).toMatch(/^admission-chain: cannot read no-such-dir: ENOENT[^\n]*\n$/);
    const noState = await runMain(['audit', '--cluster-state', 'no-such-state.yaml', tree]);
    expect(noState.code).toBe(1);
    expect(noState.stderr).toMatch(/^admission-chain: cannot read cluster state no-such-state.yaml: [^\n]*\n$/);
  });
});
