// `admission-chain migrate` end to end: a kubeadm control plane's static Pod manifest, its
// ClusterConfiguration (v1beta3 and v1beta4) and its plain flags, each naming an AdmissionConfiguration
// on the host (test/fixtures/migrate/host is that host's copy), become the same Helm values; for each
// target platform the plugins it runs itself are left out; and the chart rendered with those values
// runs the same plugins with the same configuration as the source's kube-apiserver.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadAdmissionConfiguration } from '../../src/config/admission-configuration.ts';
import { notReproduced, upstreamDefaultOn, upstreamPlugins } from '../../src/migrate/upstream-plugins.ts';
import { parseConfiguration as parseEventRateLimit } from '../../src/plugins/eventratelimit/configuration.ts';
import { orderedPlugins } from '../../src/plugins/index.ts';
import { parseConfiguration as parseNodeSelector } from '../../src/plugins/podnodeselector/configuration.ts';
import { parseConfiguration as parseTolerations } from '../../src/plugins/podtolerationrestriction/configuration.ts';
import { type KubeObject, renderChart } from '../deploy/helm.ts';
import { runMain } from '../support/cli.ts';

const fixtures = 'test/fixtures/migrate';
const root = `${fixtures}/host`;
const sources = [
  ['a static Pod manifest', `${fixtures}/kube-apiserver.yaml`],
  ['a kubeadm v1beta3 ClusterConfiguration', `${fixtures}/cluster-configuration-v1beta3.yaml`],
  ['a kubeadm v1beta4 ClusterConfiguration', `${fixtures}/cluster-configuration-v1beta4.yaml`],
  ['a file of flags', `${fixtures}/kube-apiserver.flags`],
] as const;

interface Values {
  pluginMode: string;
  plugins: Record<string, { enabled: boolean } & Record<string, unknown>>;
}

async function migrate(...args: string[]): Promise<{ values: Values; stderr: string; stdout: string }> {
  const result = await runMain(['migrate', ...args]);
  expect(result.code, result.stderr).toBe(0);
  return { values: parse(result.stdout) as Values, stderr: result.stderr, stdout: result.stdout };
}

const enabledIn = (values: Values) => Object.keys(values.plugins).filter((name) => values.plugins[name]!.enabled);

/** The source's five of ours, plus the four kube-apiserver runs by default. */
const sourceRuns = [
  'ServiceAccount',
  'AlwaysPullImages',
  'PodNodeSelector',
  'PodTolerationRestriction',
  'EventRateLimit',
  'StorageObjectInUseProtection',
  'OwnerReferencesPermissionEnforcement',
  'RuntimeClass',
  'PodTopologyLabels',
];

const nodeSelectorValues = {
  clusterDefaultNodeSelector: 'pool=general',
  namespaceWhitelists: { 'team-a': 'env=prod,pool=team-a', 'team-b': '' },
};
const tolerationValues = {
  defaultTolerations: [{ key: 'dedicated', operator: 'Equal', value: 'general', effect: 'NoSchedule' }],
  whitelist: [
    { key: 'dedicated', operator: 'Exists' },
    { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' },
  ],
};

describe('migrate: every input form gives the same values', () => {
  it.each(sources)('%s', async (_form, file) => {
    const { values, stderr, stdout } = await migrate(file, '--root', root);
    expect(values.pluginMode).toBe('enforce');
    // One entry per plugin of ours, in the server's order, so the chart's defaults decide nothing.
    expect(Object.keys(values.plugins)).toEqual(orderedPlugins.map((p) => p.name));
    expect(enabledIn(values)).toEqual(sourceRuns);
    expect(values.plugins.PodNodeSelector).toEqual({ enabled: true, ...nodeSelectorValues });
    expect(values.plugins.PodTolerationRestriction).toEqual({ enabled: true, ...tolerationValues });
    // What is not carried over is named with its reason, in the file and on stderr.
    expect(values.plugins.EventRateLimit).toEqual({ enabled: true, limits: [{ type: 'Namespace', qps: 50, burst: 100 }] });
    for (const note of [
      `NodeRestriction: not carried over, ${notReproduced.NodeRestriction}`,
      'EventRateLimit: its limits are per replica',
    ]) {
      expect(stderr).toContain(note);
      expect(stdout).toContain(`# ${note}`);
    }
  });

  it('reads --flags given directly, and stdin', async () => {
    const flags = '--enable-admission-plugins=DenyServiceExternalIPs --disable-admission-plugins=ServiceAccount,RuntimeClass';
    const direct = await migrate('--flags', flags);
    expect(enabledIn(direct.values)).toEqual(['StorageObjectInUseProtection', 'DenyServiceExternalIPs', 'PodTopologyLabels']);
    const piped = await runMain(['migrate', '-'], { stdin: `kube-apiserver ${flags}\n` });
    expect(piped.code).toBe(0);
    expect(enabledIn(parse(piped.stdout) as Values)).toEqual([
      'StorageObjectInUseProtection',
      'DenyServiceExternalIPs',
      'PodTopologyLabels',
    ]);
  });

  it('follows the deprecated --admission-control list exactly, defaults and all', async () => {
    const { values } = await migrate('--flags', '--admission-control=NamespaceLifecycle,AlwaysPullImages');
    expect(enabledIn(values)).toEqual(['AlwaysPullImages']);
  });
});

describe('migrate --target: what each platform runs itself is left out', () => {
  it.each([
    {
      target: 'eks',
      enabled: [
        'AlwaysPullImages',
        'PodNodeSelector',
        'PodTolerationRestriction',
        'EventRateLimit',
        'OwnerReferencesPermissionEnforcement',
      ],
      notes: [
        'ServiceAccount: left out, EKS runs it in its own kube-apiserver',
        'RuntimeClass: left out, EKS runs it in its own kube-apiserver',
      ],
    },
    {
      target: 'aks',
      // AKS runs PodNodeSelector and PodTolerationRestriction from annotations only: ours keeps the file's configuration.
      enabled: [
        'AlwaysPullImages',
        'PodNodeSelector',
        'PodTolerationRestriction',
        'EventRateLimit',
        'OwnerReferencesPermissionEnforcement',
      ],
      notes: [
        'PodNodeSelector: AKS runs it from namespace annotations only; ours carries the AdmissionConfiguration',
        'ServiceAccount: left out, AKS runs it in its own kube-apiserver',
      ],
    },
    {
      target: 'gke',
      enabled: [
        'AlwaysPullImages',
        'PodNodeSelector',
        'PodTolerationRestriction',
        'EventRateLimit',
        'OwnerReferencesPermissionEnforcement',
      ],
      notes: ['AlwaysPullImages: GKE does not document whether it runs it', 'StorageObjectInUseProtection: left out, GKE runs it'],
    },
  ])('$target', async ({ target, enabled, notes }) => {
    const { values, stderr } = await migrate(`${fixtures}/kube-apiserver.yaml`, '--root', root, '--target', target);
    expect(enabledIn(values)).toEqual(enabled);
    for (const note of notes) expect(stderr).toContain(note);
    expect(values.plugins.PodNodeSelector).toEqual({ enabled: true, ...nodeSelectorValues });
  });

  it('says when the source turned off a plugin the platform runs anyway', async () => {
    const { stderr } = await migrate('--flags', '--disable-admission-plugins=ServiceAccount,DefaultStorageClass', '--target', 'eks');
    expect(stderr).toContain('ServiceAccount: disabled in the source, but EKS runs it');
    expect(stderr).toContain('DefaultStorageClass: disabled in the source, but EKS runs it');
  });
});

describe('migrate: the chart renders what the source runs', () => {
  let scratch: string;
  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'migrate-'));
  });
  afterAll(async () => {
    if (scratch !== undefined) await rm(scratch, { recursive: true, force: true });
  });

  it.each([undefined, 'eks'] as const)('with target %s: the same plugins, the same configuration', async (target) => {
    const { stdout, values } = await migrate(`${fixtures}/kube-apiserver.yaml`, '--root', root, ...(target ? ['--target', target] : []));
    const valuesFile = join(scratch, `values-${target ?? 'none'}.yaml`);
    await writeFile(valuesFile, stdout);
    const rendered = renderChart({ valuesFiles: [valuesFile] });
    const args = containerArgs(rendered);
    expect(args).toContain(`--plugins=${enabledIn(values).join(',')}`);
    expect(args.filter((arg) => arg.startsWith('--plugin-mode'))).toEqual([]);

    // The rendered AdmissionConfiguration, read as the webhook reads it, holds what the source's does.
    const configMap = rendered.find(
      (o) => o.kind === 'ConfigMap' && Object.keys((o as { data?: object }).data ?? {}).includes('admission-configuration.yaml'),
    ) as (KubeObject & { data: Record<string, string> }) | undefined;
    expect(configMap).toBeDefined();
    const renderedFile = join(scratch, `admission-${target ?? 'none'}.yaml`);
    await writeFile(renderedFile, configMap!.data['admission-configuration.yaml']!);
    const names = ['PodNodeSelector', 'PodTolerationRestriction', 'EventRateLimit'];
    const chart = await loadAdmissionConfiguration(renderedFile, names, names);
    const source = await loadAdmissionConfiguration(`${root}/srv/kube-admission/admission-configuration.yaml`, names, names);
    expect(parseNodeSelector(chart.configurations.for('PodNodeSelector'), 'PodNodeSelector')).toEqual(
      parseNodeSelector(source.configurations.for('PodNodeSelector'), 'PodNodeSelector'),
    );
    expect(parseTolerations(chart.configurations.for('PodTolerationRestriction'), 'PodTolerationRestriction')).toEqual(
      parseTolerations(source.configurations.for('PodTolerationRestriction'), 'PodTolerationRestriction'),
    );
    expect(parseEventRateLimit(chart.configurations.for('EventRateLimit'), 'EventRateLimit')).toEqual(
      parseEventRateLimit(source.configurations.for('EventRateLimit'), 'EventRateLimit'),
    );
  });
});

function containerArgs(rendered: KubeObject[]): string[] {
  const deployment = rendered.find((o) => o.kind === 'Deployment') as
    | (KubeObject & { spec: { template: { spec: { containers: Array<{ args?: string[] }> } } } })
    | undefined;
  return deployment?.spec.template.spec.containers[0]?.args ?? [];
}

describe('migrate: what it cannot read, it says', () => {
  it.each([
    [
      ['--flags', '--enable-admission-plugins=PodNodeSelecter'],
      'kube-apiserver would refuse these flags: enable-admission-plugins plugin "PodNodeSelecter" is unknown',
    ],
    [
      ['--flags', '--enable-admission-plugins=AlwaysPullImages --disable-admission-plugins=AlwaysPullImages'],
      '[AlwaysPullImages] in enable-admission-plugins and disable-admission-plugins overlapped',
    ],
    [
      ['--flags', '--admission-control=AlwaysPullImages --enable-admission-plugins=PodNodeSelector'],
      'admission-control and enable-admission-plugins/disable-admission-plugins flags are mutually exclusive',
    ],
    [
      ['--flags', '--enable-admission-plugins=PodNodeSelector --admission-control-config-file=/nonexistent/admission.yaml'],
      'unable to read admission control configuration from "/nonexistent/admission.yaml"',
    ],
    [
      [`${fixtures}/kube-apiserver.yaml`],
      'unable to read admission control configuration from "/etc/kubernetes/admission/admission-configuration.yaml"',
    ],
    [['--flags', '--enable-admission-plugins=EventRateLimit'], 'EventRateLimit is enabled without --admission-control-config-file'],
    [['examples/pod.yaml'], 'the Pod has no kube-apiserver container'],
    [
      ['examples/namespace.yaml'],
      "expected a kube-apiserver static Pod manifest, a kubeadm ClusterConfiguration or kube-apiserver's flags, got v1 Namespace",
    ],
    [['/nonexistent/kube-apiserver.yaml'], 'cannot read /nonexistent/kube-apiserver.yaml'],
  ])('%j', async (args, message) => {
    const result = await runMain(['migrate', ...args]);
    expect(result).toMatchObject({ code: 1, stdout: '' });
    expect(result.stderr).toContain(message);
  });

  it("refuses a configuration the webhook would refuse, with the plugin decoder's message", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'migrate-bad-'));
    try {
      await writeFile(
        join(dir, 'admission.yaml'),
        'apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n  - name: PodNodeSelector\n    configuration:\n      podNodeSelectorPluginConfig:\n        team-a: "pool in (a"\n',
      );
      const result = await runMain([
        'migrate',
        '--flags',
        `--enable-admission-plugins=PodNodeSelector --admission-control-config-file=${dir}/admission.yaml`,
      ]);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('plugin PodNodeSelector: podNodeSelectorPluginConfig.team-a');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it.each([
    [[], 'give one source: a file (or - for stdin), or --flags'],
    [['--flags', '', 'x.yaml'], 'give one source'],
    [['--flags', '', '--target', 'openshift'], '--target "openshift": expected one of eks, gke, aks'],
  ])('usage error %j exits 2', async (args, message) => {
    const result = await runMain(['migrate', ...args]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
  });
});

describe('migrate: its upstream lists', () => {
  it('hold every plugin of ours, and give a reason for each off-by-default plugin admission-chain does not run', () => {
    const ours = orderedPlugins.map((p) => p.name);
    for (const name of ours) expect(upstreamPlugins).toContain(name);
    // Ours keep kube-apiserver's relative order.
    expect(upstreamPlugins.filter((name) => ours.includes(name))).toEqual(ours);
    const offAndNotOurs = upstreamPlugins.filter((name) => !upstreamDefaultOn.has(name) && !ours.includes(name));
    expect(Object.keys(notReproduced).sort()).toEqual(offAndNotOurs.sort());
  });
});
