// The chart's scheduled audit (audit.schedule): off by default; on, a CronJob running `audit` with the
// webhook's own plugin selection, AdmissionConfiguration and exemptions (plus what the webhook is never
// sent), applying its reports, as its own ServiceAccount bound to a ClusterRole that lists exactly
// what audit reads and writes only the report kind it applies. The CronJob's flags are read back by
// the audit command itself, through the files the pod would see.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { clusterResources } from '../../src/cli/audit-scope.ts';
import { loadPluginExemptionsFlag } from '../../src/config/plugin-exemptions.ts';
import { orderedPlugins } from '../../src/plugins/index.ts';
import { runMain } from '../support/cli.ts';
import { projectConfigMapMounts } from './config-map-mounts.ts';
import { defaultNamespace, defaultRelease, installNotes, type KubeObject, only, renderChart, runHelm } from './helm.ts';
import { validateKubernetesObject } from './kube-schema.ts';

const fullname = `${defaultRelease}-admission-chain`;
const name = `${fullname}-audit`;
const on = { audit: { schedule: { enabled: true } } };
const scratch = mkdtempSync(join(tmpdir(), 'admission-chain-audit-cronjob-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
let run = 0;

interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[];
}
interface Container {
  args: string[];
  command: string[];
  resources: unknown;
  securityContext: unknown;
  volumeMounts: Array<{ name: string; mountPath: string; readOnly?: boolean }>;
}
interface PodSpec {
  serviceAccountName: string;
  securityContext: unknown;
  restartPolicy: string;
  containers: Container[];
  volumes: Array<{ name: string; configMap?: { name: string }; secret?: { secretName: string } }>;
}
type CronJob = KubeObject & {
  spec: {
    schedule: string;
    timeZone?: string;
    concurrencyPolicy: string;
    successfulJobsHistoryLimit: number;
    failedJobsHistoryLimit: number;
    jobTemplate: { spec: { template: { spec: PodSpec } } };
  };
};
type Deployment = KubeObject & { spec: { template: { spec: PodSpec } } };
type ClusterRole = KubeObject & { rules: Rule[] };
type Binding = KubeObject & { roleRef: { kind: string; name: string }; subjects: Array<{ kind: string; name: string; namespace: string }> };

const withValues = (values: Record<string, unknown>) =>
  renderChart({ values: { ...values, audit: { schedule: { enabled: true, ...scheduleOf(values) } } } });
const scheduleOf = (values: Record<string, unknown>) => (values.audit as { schedule?: object } | undefined)?.schedule ?? {};
const cronJob = (objects: KubeObject[]) => only<CronJob>(objects, 'CronJob');
const auditPod = (objects: KubeObject[]) => cronJob(objects).spec.jobTemplate.spec.template.spec;
const webhookPod = (objects: KubeObject[]) => only<Deployment>(objects, 'Deployment').spec.template.spec;
const flag = (args: string[], name: string) => args.filter((a) => a.startsWith(`${name}=`)).map((a) => a.slice(name.length + 1));

/** Each rule as "group resource verb,verb" lines, sorted: what the rules allow, not how they are grouped. */
function grants(rules: Rule[]): string[] {
  return rules
    .flatMap((r) => r.apiGroups.flatMap((g) => r.resources.map((res) => `${g || 'core'} ${res} ${[...r.verbs].sort().join(',')}`)))
    .sort();
}

const listed = clusterResources.map((r) => `${r.group || 'core'} ${r.resource} list`);
const namespaces = 'core namespaces get,list,watch';
const openReports = ['openreports.io clusterreports create,delete,list,patch', 'openreports.io reports create,delete,list,patch'];

describe('the chart without audit.schedule', () => {
  it('renders no CronJob and nothing for the audit', () => {
    const objects = renderChart();
    expect(objects.filter((o) => o.kind === 'CronJob')).toEqual([]);
    expect(objects.filter((o) => o.metadata.name.startsWith(name)).map((o) => o.kind)).toEqual([]);
  });
});

describe('the chart with audit.schedule.enabled', () => {
  it('adds exactly a ServiceAccount, a ClusterRole, its binding, the exemptions ConfigMap and the CronJob, all valid objects', () => {
    const before = renderChart().map((o) => `${o.kind} ${o.metadata.name}`);
    const objects = renderChart({ values: on });
    const added = objects.map((o) => `${o.kind} ${o.metadata.name}`).filter((o) => !before.includes(o));
    expect(added.sort()).toEqual(
      [
        `ClusterRole ${name}`,
        `ClusterRoleBinding ${name}`,
        `ConfigMap ${name}-exemptions`,
        `CronJob ${name}`,
        `ServiceAccount ${name}`,
      ].sort(),
    );
    for (const object of objects.filter((o) => o.metadata.name.startsWith(name))) validateKubernetesObject(object);
  });

  it('binds its own ClusterRole to its own ServiceAccount, which the CronJob runs as', () => {
    const objects = renderChart({ values: on });
    const binding = only<Binding>(objects, 'ClusterRoleBinding', name);
    expect(binding.roleRef).toMatchObject({ kind: 'ClusterRole', name });
    expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name, namespace: defaultNamespace }]);
    expect(only(objects, 'ServiceAccount', name).metadata.namespace).toBe(defaultNamespace);
    expect(auditPod(objects).serviceAccountName).toBe(name);
    expect(auditPod(objects).serviceAccountName).not.toBe(webhookPod(objects).serviceAccountName);
  });

  it.each<[string, Record<string, unknown>, string[]]>([
    // The default plugins: AlwaysPullImages and ORPE, which asks SubjectAccessReviews.
    ['the default plugins', {}, [...listed, 'authorization.k8s.io subjectaccessreviews create', namespaces, ...openReports]],
    [
      'ORPE off, the plugins that look things up on',
      {
        plugins: {
          OwnerReferencesPermissionEnforcement: { enabled: false },
          ServiceAccount: { enabled: true },
          RuntimeClass: { enabled: true },
          PodTopologyLabels: { enabled: true },
        },
      },
      [
        ...listed,
        'core serviceaccounts get,list,watch',
        namespaces,
        'node.k8s.io runtimeclasses get,list,watch',
        'core nodes get,list,watch',
        ...openReports,
      ],
    ],
    [
      'the older report API',
      {
        plugins: { OwnerReferencesPermissionEnforcement: { enabled: false } },
        audit: { schedule: { reportApi: 'wgpolicyk8s.io/v1alpha2' } },
      },
      [
        ...listed,
        namespaces,
        'wgpolicyk8s.io clusterpolicyreports create,delete,list,patch',
        'wgpolicyk8s.io policyreports create,delete,list,patch',
      ],
    ],
  ])('grants exactly what audit reads and the reports it writes: %s', (_, values, expected) => {
    const role = only<ClusterRole>(withValues(values), 'ClusterRole', name);
    expect(grants(role.rules)).toEqual([...expected].sort());
  });

  it("has every read the webhook's ClusterRole has for its plugins, and none of its writes", () => {
    const values = {
      plugins: { ServiceAccount: { enabled: true }, RuntimeClass: { enabled: true } },
      webhooks: { registerWhenReady: true },
    };
    const objects = withValues(values);
    const webhook = only<ClusterRole>(objects, 'ClusterRole', fullname).rules;
    const audit = grants(only<ClusterRole>(objects, 'ClusterRole', name).rules);
    const pluginReads = grants(webhook.filter((r) => r.resourceNames === undefined));
    expect(pluginReads.length).toBeGreaterThan(2);
    for (const read of pluginReads) expect(audit).toContain(read);
    expect(audit.some((g) => g.includes('webhookconfigurations') || g.startsWith('core secrets'))).toBe(false);
  });

  it('runs on its schedule, one run at a time, with history limits, the resources asked and the security contexts of the Deployment', () => {
    const values = {
      audit: { schedule: { cron: '*/30 * * * *', timeZone: 'Etc/UTC', successfulJobsHistoryLimit: 2, failedJobsHistoryLimit: 4 } },
    };
    const objects = withValues(values);
    const { spec } = cronJob(objects);
    expect(spec).toMatchObject({
      schedule: '*/30 * * * *',
      timeZone: 'Etc/UTC',
      concurrencyPolicy: 'Forbid',
      successfulJobsHistoryLimit: 2,
      failedJobsHistoryLimit: 4,
    });
    const pod = auditPod(objects);
    const webhook = webhookPod(objects);
    expect(pod.restartPolicy).toBe('Never');
    expect(pod.securityContext).toEqual(webhook.securityContext);
    expect(pod.containers[0]!.securityContext).toEqual(webhook.containers[0]!.securityContext);
    expect(pod.containers[0]!.resources).toEqual({ requests: { cpu: '50m', memory: '128Mi' }, limits: { memory: '384Mi' } });
    expect(pod.containers[0]!.command).toEqual(['node', 'dist/cli/run.js', 'audit']);
    expect(renderChart({ values: on }).find((o) => o.kind === 'CronJob')).not.toHaveProperty('spec.timeZone');
  });

  it.each<[string, Record<string, unknown>]>([
    ['the default plugins', {}],
    [
      'plugins with configurations, modes of their own and exemptions',
      {
        pluginMode: 'warn',
        plugins: {
          AlwaysPullImages: { mode: 'enforce' },
          PodNodeSelector: { enabled: true, clusterDefaultNodeSelector: 'pool=general' },
          EventRateLimit: { enabled: true, limits: [{ type: 'Server', qps: 50, burst: 100 }] },
          DenyServiceExternalIPs: { enabled: true, mode: 'audit' },
        },
        exemptions: { AlwaysPullImages: { namespaces: ['istio-system'], groups: ['platform-admins'] } },
      },
    ],
  ])("audits the webhook's plugin selection with its AdmissionConfiguration, applying the reports: %s", (_, values) => {
    for (const pluginModes of ['enforce', 'webhook']) {
      const objects = withValues({ ...values, audit: { schedule: { pluginModes } } });
      const args = auditPod(objects).containers[0]!.args;
      const served = webhookPod(objects).containers[0]!.args;
      expect(flag(args, '--plugins')).toEqual(flag(served, '--plugins'));
      expect(flag(args, '--admission-control-config-file')).toEqual(flag(served, '--admission-control-config-file'));
      // enforce: every plugin judged as enforcing; webhook: the webhook's own modes.
      expect(flag(args, '--plugin-mode')).toEqual(pluginModes === 'webhook' ? flag(served, '--plugin-mode') : []);
      expect(args).toEqual(expect.arrayContaining(['--output=policyreport', '--report-api=openreports.io/v1alpha1', '--apply-reports']));
      const configuration = flag(served, '--admission-control-config-file')[0];
      if (configuration !== undefined) {
        const mount = auditPod(objects).volumes.find((v) => v.name === 'admission-configuration');
        expect(mount?.configMap?.name).toBe(webhookPod(objects).volumes.find((v) => v.name === 'admission-configuration')?.configMap?.name);
      }
    }
  });

  it("exempts each plugin where the user's exemptions do, and where the webhook is never sent anything", async () => {
    const values = {
      webhooks: { excludedNamespaces: ['legacy'], optOutLabel: 'example.com/no-admission' },
      plugins: { ServiceAccount: { enabled: true } },
      exemptions: {
        AlwaysPullImages: {
          namespaces: ['istio-system'],
          namespaceSelectors: [{ matchLabels: { team: 'platform' } }],
          serviceAccounts: ['vendor-system/operator'],
        },
      },
    };
    const objects = withValues(values);
    const files = await projectedAudit(objects);
    const args = files.args;
    const enabled = flag(args, '--plugins')[0]!.split(',');
    expect(enabled).toEqual(['ServiceAccount', 'AlwaysPullImages', 'OwnerReferencesPermissionEnforcement']);
    const known = orderedPlugins.map((p) => p.name);
    const loaded = await loadPluginExemptionsFlag(flag(args, '--plugin-exemptions-file')[0]!, enabled, known);
    expect(loaded.warnings).toEqual([]);
    const excluded = [defaultNamespace, 'kube-system', 'kube-node-lease', 'legacy'];
    const optedOut = { matchLabels: { 'example.com/no-admission': 'true' } };
    expect([...loaded.rules.keys()].sort()).toEqual([...enabled].sort());
    const rules = (plugin: string) => JSON.parse(JSON.stringify(loaded.rules.get(plugin))) as Record<string, unknown>;
    expect(rules('AlwaysPullImages')).toMatchObject({
      namespaces: [...excluded, 'istio-system'],
      namespaceSelectors: [{ matchLabels: { team: 'platform' } }, optedOut],
      serviceAccounts: ['vendor-system/operator'],
    });
    expect(rules('ServiceAccount')).toMatchObject({ namespaces: excluded, namespaceSelectors: [optedOut] });
  });

  it('gives flags the audit command accepts, with the files the pod mounts', async () => {
    const values = {
      plugins: { PodNodeSelector: { enabled: true, clusterDefaultNodeSelector: 'pool=general' } },
      exemptions: { AlwaysPullImages: { namespaces: ['istio-system'] } },
    };
    const { args } = await projectedAudit(withValues(values));
    // Everything is read and checked before the cluster is: the kubeconfig is the first thing missing.
    const missing = join(scratch, 'no-such-kubeconfig');
    const result = await runMain(['audit', ...args, '--kubeconfig', missing]);
    expect(result.stderr).toBe(
      `admission-chain: cannot load kubeconfig ${missing}: ENOENT: no such file or directory, open '${missing}'\n`,
    );
    expect(result.code).toBe(1);
  });

  it("mounts ImagePolicyWebhook's kubeconfig Secret as the Deployment does", () => {
    const values = { plugins: { ImagePolicyWebhook: { enabled: true, kubeConfigSecret: { name: 'image-review' } } } };
    const objects = withValues(values);
    const secretOf = (pod: PodSpec) => pod.volumes.find((v) => v.name === 'image-policy-kubeconfig')?.secret?.secretName;
    const mountOf = (pod: PodSpec) => pod.containers[0]!.volumeMounts.find((m) => m.name === 'image-policy-kubeconfig');
    expect(secretOf(auditPod(objects))).toBe('image-review');
    expect(mountOf(auditPod(objects))).toEqual(mountOf(webhookPod(objects)));
  });

  it('NOTES name the CronJob and the command that lists its reports; without it, how to audit', () => {
    const notes = (extra: string[]) => {
      const { stderr, notes } = installNotes(extra);
      expect(stderr).toBe('');
      return notes;
    };
    const scheduled = notes(['--set', 'audit.schedule.enabled=true']);
    expect(scheduled).toContain(`The scheduled audit (CronJob ${name}, "23 * * * *")`);
    expect(scheduled).toContain('kubectl get reports.openreports.io -A -l app.kubernetes.io/managed-by=admission-chain');
    expect(scheduled).not.toContain('--set audit.schedule.enabled=true');
    const older = notes(['--set', 'audit.schedule.enabled=true', '--set', 'audit.schedule.reportApi=wgpolicyk8s.io/v1alpha2']);
    expect(older).toContain('kubectl get policyreports.wgpolicyk8s.io -A -l app.kubernetes.io/managed-by=admission-chain');
    const unscheduled = notes([]);
    expect(unscheduled).not.toContain('The scheduled audit');
    expect(unscheduled).toContain('admission-chain audit --kubeconfig');
    expect(unscheduled).toContain('--set audit.schedule.enabled=true');
  });

  it('passes helm lint --strict', () => {
    const result = runHelm('lint', { values: on });
    expect(result.stderr + result.stdout).not.toMatch(/\[(ERROR|WARNING)\]/);
    expect(result.status).toBe(0);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['an unknown key', { schedulle: '* * * * *' }, 'schedulle'],
    ['a report API audit does not write', { reportApi: 'reports.x-k8s.io/v1beta2' }, 'reportApi'],
    ['a mode that is neither enforce nor webhook', { pluginModes: 'warn' }, 'pluginModes'],
    ['an empty schedule', { cron: '' }, 'cron'],
  ])('the schema refuses %s', (_, schedule, detail) => {
    const result = runHelm('template', { values: { audit: { schedule: { enabled: true, ...schedule } } } });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain('values don');
    expect(result.stderr).toContain(detail);
  });
});

/** The CronJob's flags with each mounted ConfigMap's path replaced by its projected file. */
async function projectedAudit(objects: KubeObject[]): Promise<{ args: string[] }> {
  const pod = auditPod(objects);
  // The projection reads a Deployment's pod: hand it the CronJob's.
  const asDeployment = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name }, spec: { template: { spec: pod } } };
  const others = objects.filter((o) => o.kind !== 'Deployment');
  const mounts = await projectConfigMapMounts([...others, asDeployment], join(scratch, String(run++)));
  const args = pod.containers[0]!.args.map((arg) => {
    const at = arg.indexOf('=');
    return at < 0 || !arg.slice(at + 1).startsWith('/') ? arg : `${arg.slice(0, at + 1)}${mounts.localPath(arg.slice(at + 1))}`;
  });
  return { args };
}
