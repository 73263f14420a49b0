// The chart and the server must agree: every flag the chart renders is one `serve` accepts, the plugin
// set and modes it asks for are the ones the server ends up running, and the chart's plugin catalogue
// lists the server's plugins in the server's order. Parsed with the server's own option definitions.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import * as build from '../../build/entries.ts';
import { loadAdmissionConfigurationFlag } from '../../src/config/admission-configuration.ts';
import { addServeOptions, parseServeConfig, type RawServeOptions } from '../../src/config/serve-config.ts';
import { parseConfiguration as parseEventRateLimitConfiguration } from '../../src/plugins/eventratelimit/configuration.ts';
import { parseConfiguration as parseImagePolicyConfiguration } from '../../src/plugins/imagepolicywebhook/configuration.ts';
import { defaultEnabledPlugins, orderedPlugins } from '../../src/plugins/index.ts';
import { parseConfiguration as parseNodeSelectorConfiguration } from '../../src/plugins/podnodeselector/configuration.ts';
import { parseConfiguration as parseTolerationConfiguration } from '../../src/plugins/podtolerationrestriction/configuration.ts';
import { testPorts } from '../support/ports.ts';
import { projectConfigMapMounts } from './config-map-mounts.ts';
import { chartDir, type KubeObject, only, renderChart } from './helm.ts';
import { repoRoot } from './tools.ts';

interface Container {
  command: string[];
  args: string[];
}

function serverConfigFor(values: Record<string, unknown>, valuesFiles: string[] = []) {
  const objects = renderChart({ values, valuesFiles });
  const deployment = only(objects, 'Deployment') as KubeObject & { spec: { template: { spec: { containers: Container[] } } } };
  const container = deployment.spec.template.spec.containers[0] as Container;
  const serve = addServeOptions(new Command('serve')).exitOverride().allowExcessArguments(false);
  serve.parse(container.args, { from: 'user' });
  return { objects, container, config: parseServeConfig(serve.opts<RawServeOptions>(), orderedPlugins, defaultEnabledPlugins) };
}

const chartPluginOrder = (): string[] => {
  const helpers = readFileSync(join(chartDir, 'templates', '_helpers.tpl'), 'utf8');
  const block = /define "admission-chain\.pluginOrder" -}}\n([\s\S]*?)\{\{- end }}/.exec(helpers)?.[1] ?? '';
  return [...block.matchAll(/^- (\w+)$/gm)].map((m) => m[1] as string);
};

const pluginNames = orderedPlugins.map((p) => p.name);

interface PodSpecWithVolumes {
  volumes: { name: string; secret?: { secretName: string } }[];
  containers: { volumeMounts: { name: string; mountPath: string }[] }[];
}
/** ImagePolicyWebhook will not start without its backend's kubeconfig (as upstream): this Secret's. */
const imagePolicySecret = 'image-policy-backend';
/** EventRateLimit will not start without a limit (as upstream): this one, wherever it is enabled. */
const eventLimits = [{ type: 'Namespace', qps: 50, burst: 100, cacheSize: 2000 }];
const enableOnly = (names: string[], modes: Record<string, string> = {}) => ({
  plugins: Object.fromEntries(
    chartPluginOrder().map((n) => [
      n,
      {
        enabled: names.includes(n),
        mode: modes[n] ?? 'enforce',
        ...(n === 'EventRateLimit' ? { limits: eventLimits } : {}),
        ...(n === 'ImagePolicyWebhook' ? { kubeConfigSecret: { name: imagePolicySecret } } : {}),
      },
    ]),
  ),
});
const eventRateLimitConfiguration = {
  for: (name: string) =>
    name === 'EventRateLimit'
      ? {
          source: 'test',
          documents: [{ apiVersion: 'eventratelimit.admission.k8s.io/v1alpha1', kind: 'Configuration', limits: eventLimits }],
        }
      : name === 'ImagePolicyWebhook'
        ? { source: 'test', documents: [{ imagePolicy: { kubeConfigFile: 'kubeconfig' } }] }
        : undefined,
};
/** Enough of an ImageReview client to build the plugin: nothing is asked. */
const noImageReviews = { fromKubeConfigFile: () => ({ url: 'https://backend', post: () => Promise.reject(new Error('not asked')) }) };

describe('chart ↔ server contract', () => {
  it('the chart knows exactly the server’s plugins, in the server’s order', () => {
    expect(chartPluginOrder()).toEqual(pluginNames);
    expect(pluginNames).toHaveLength(13);
  });

  it('values.yaml lists every plugin in the server’s order, and the schema knows each of them', () => {
    const values = parse(readFileSync(join(chartDir, 'values.yaml'), 'utf8')) as { plugins: Record<string, unknown> };
    const schema = JSON.parse(readFileSync(join(chartDir, 'values.schema.json'), 'utf8')) as {
      properties: { plugins: { properties: Record<string, unknown> } };
    };
    expect(Object.keys(values.plugins)).toEqual(pluginNames);
    expect(Object.keys(schema.properties.plugins.properties).sort()).toEqual([...pluginNames].sort());
  });

  it('starts the entry point the production build emits (src/cli/run.ts → dist/cli/run.js)', () => {
    const { container } = serverConfigFor({});
    const entry = container.command?.find((arg) => arg.endsWith('.js')) ?? '';
    expect(container.command).toEqual(['node', '--max-semi-space-size=4', '--no-parallel-scavenge', entry, 'serve']);
    expect(entry.startsWith(`${build.outDir}/`)).toBe(true);
    const source = build.entries[entry.slice(build.outDir.length + 1).replace(/\.js$/, '') as keyof typeof build.entries];
    expect(source).toBeDefined();
    expect(readFileSync(join(repoRoot, source), 'utf8')).toContain('await main(process.argv)');
  });

  it('default values: the server runs its own default plugin set, warning, with the chart’s deadlines', () => {
    const { config } = serverConfigFor({});
    expect(config.plugins.enabled).toEqual(pluginNames.filter((n) => defaultEnabledPlugins.includes(n)));
    expect(config.plugins.enabled.map((name) => config.plugins.modes[name])).toEqual(config.plugins.enabled.map(() => 'warn'));
    expect(config).toMatchObject({
      port: 8443,
      metricsPort: 8080,
      logLevel: 'info',
      requestTimeoutMs: 9000,
      shutdownDelayMs: 15000,
      drainTimeoutMs: 10000,
      tlsCertFile: '/etc/admission-chain/tls/tls.crt',
      tlsPrivateKeyFile: '/etc/admission-chain/tls/tls.key',
      clusterState: undefined,
    });
  });

  it('pluginMode enforce: no --plugin-mode at all, and the server enforces, as serve and the CLI do when no mode is given', () => {
    const { config, container } = serverConfigFor({ pluginMode: 'enforce' });
    expect(container.args.filter((a) => a.startsWith('--plugin-mode'))).toEqual([]);
    expect(config.plugins.enabled.map((name) => config.plugins.modes[name] ?? 'enforce')).toEqual(
      config.plugins.enabled.map(() => 'enforce'),
    );
    // And every plugin, with no mode given to the server at all.
    const serve = addServeOptions(new Command('serve')).exitOverride().allowExcessArguments(false);
    serve.parse(['--tls-cert-file=c', '--tls-private-key-file=k', `--plugins=${pluginNames.join(',')}`], { from: 'user' });
    const bare = parseServeConfig(serve.opts<RawServeOptions>(), orderedPlugins, defaultEnabledPlugins);
    expect(pluginNames.map((name) => bare.plugins.modes[name] ?? 'enforce')).toEqual(pluginNames.map(() => 'enforce'));
  });

  it('a plugin’s own mode overrides pluginMode, either way', () => {
    const warnButOrpe = serverConfigFor({ plugins: { OwnerReferencesPermissionEnforcement: { enabled: true, mode: 'enforce' } } }).config
      .plugins.modes;
    expect([warnButOrpe.AlwaysPullImages, warnButOrpe.OwnerReferencesPermissionEnforcement ?? 'enforce']).toEqual(['warn', 'enforce']);
    const enforceButApi = serverConfigFor({ pluginMode: 'enforce', plugins: { AlwaysPullImages: { enabled: true, mode: 'audit' } } }).config
      .plugins.modes;
    expect([enforceButApi.AlwaysPullImages, enforceButApi.OwnerReferencesPermissionEnforcement ?? 'enforce']).toEqual(['audit', 'enforce']);
  });

  it.each(pluginNames.map((name) => [name]))('only %s: the server runs exactly that plugin', (name) => {
    expect(serverConfigFor(enableOnly([name])).config.plugins.enabled).toEqual([name]);
  });

  it.each(pluginNames.map((name) => [name]))(
    'only %s: the chart installs a configuration for each phase the server runs it in, which is what registration reports on',
    (name) => {
      const definition = orderedPlugins.find((p) => p.name === name)!;
      const needs = Object.fromEntries(definition.needs.map((need) => [need, need === 'imageReview' ? noImageReviews : {}]));
      const plugin = definition.create(testPorts({ ...needs, configuration: eventRateLimitConfiguration }) as never);
      const kinds = serverConfigFor(enableOnly([name]))
        .objects.filter((o) => o.kind.endsWith('WebhookConfiguration'))
        .map((o) => o.kind)
        .sort();
      expect(kinds).toEqual([
        ...(plugin.admit ? ['MutatingWebhookConfiguration'] : []),
        ...(plugin.validate ? ['ValidatingWebhookConfiguration'] : []),
      ]);
    },
  );

  it('every plugin, with modes: the server runs all of them in its order with those modes', () => {
    const modes = { [pluginNames[0] as string]: 'warn', [pluginNames.at(-1) as string]: 'audit' };
    const { config } = serverConfigFor(enableOnly(pluginNames, modes));
    expect(config.plugins.enabled).toEqual(pluginNames);
    for (const name of pluginNames) expect(config.plugins.modes[name] ?? 'enforce', name).toBe(modes[name] ?? 'enforce');
  });

  it('default values: the server registers itself in the chart’s configurations and manages its certificate in the chart’s Secret', () => {
    const { config } = serverConfigFor({});
    expect(config.management).toEqual({
      webhookConfiguration: 'ac-admission-chain',
      webhookCaBundleFile: undefined,
      selfManagedTls: {
        secret: { namespace: 'admission-chain', name: 'ac-admission-chain-tls' },
        policy: {
          commonName: 'ac-admission-chain.admission-chain.svc',
          names: [
            'ac-admission-chain.admission-chain.svc',
            'ac-admission-chain',
            'ac-admission-chain.admission-chain',
            'ac-admission-chain.admission-chain.svc.cluster.local',
          ],
          durationMs: 2160 * 3_600_000,
          renewBeforeMs: 720 * 3_600_000,
          caDurationMs: 87600 * 3_600_000,
        },
      },
      reconcileIntervalMs: 30_000,
    });
  });

  it('cert-manager: the server injects the ca.crt cert-manager writes into its mounted Secret', () => {
    const { config, container } = serverConfigFor({ tls: { mode: 'cert-manager' } });
    expect(config.management).toMatchObject({
      webhookConfiguration: 'ac-admission-chain',
      webhookCaBundleFile: '/etc/admission-chain/tls/ca.crt',
      selfManagedTls: undefined,
    });
    expect(config.tlsCertFile.startsWith('/etc/admission-chain/tls/')).toBe(true);
    expect(container.args.filter((a) => a.startsWith('--tls-'))).toHaveLength(2);
  });

  it('client authentication: the server gets the mounted CA bundle as --client-ca-file', () => {
    const { config } = serverConfigFor({ tls: { clientCA: { enabled: true, existingSecret: 'apiserver-client-ca', key: 'bundle.pem' } } });
    expect(config.clientCaFile).toBe('/etc/admission-chain/client-ca/bundle.pem');
  });

  it('SubjectAccessReview cache TTLs and log level reach the server', () => {
    const { config } = serverConfigFor({ server: { logLevel: 'debug', subjectAccessReviewCache: { allowedTTL: '1m', deniedTTL: '5s' } } });
    expect(config).toMatchObject({ logLevel: 'debug', sarAllowedTtlMs: 60_000, sarDeniedTtlMs: 5_000 });
  });
});

// The chart renders the plugins' configuration as kube-apiserver's AdmissionConfiguration file; the
// server must read back exactly what the values say, through the path the pod mounts it at.
describe('chart ↔ server contract: the AdmissionConfiguration file', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'admission-chain-contract-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));
  let run = 0;

  /** Renders, projects the mounted ConfigMaps as the kubelet would, and loads the file as `serve` does. */
  async function serverReads(values: Record<string, unknown>, valuesFiles: string[] = []) {
    const { objects, config } = serverConfigFor(values, valuesFiles);
    if (config.admissionControlConfigFile === undefined) return undefined;
    const mounts = await projectConfigMapMounts(objects, join(scratch, String(run++)));
    const file = mounts.localPath(config.admissionControlConfigFile);
    expect(file, 'the flag names a file inside a mounted ConfigMap').not.toBe(config.admissionControlConfigFile);
    const loaded = await loadAdmissionConfigurationFlag(file, config.plugins.enabled, pluginNames);
    expect(loaded.warnings).toEqual([]);
    return {
      enabled: config.plugins.enabled,
      nodeSelector: config.plugins.enabled.includes('PodNodeSelector')
        ? parseNodeSelectorConfiguration(loaded.configurations.for('PodNodeSelector'), 'PodNodeSelector')
        : undefined,
      tolerations: config.plugins.enabled.includes('PodTolerationRestriction')
        ? parseTolerationConfiguration(loaded.configurations.for('PodTolerationRestriction'), 'PodTolerationRestriction')
        : undefined,
      eventRateLimit: config.plugins.enabled.includes('EventRateLimit')
        ? parseEventRateLimitConfiguration(loaded.configurations.for('EventRateLimit'), 'EventRateLimit')
        : undefined,
      imagePolicy: config.plugins.enabled.includes('ImagePolicyWebhook')
        ? parseImagePolicyConfiguration(loaded.configurations.for('ImagePolicyWebhook'), 'ImagePolicyWebhook')
        : undefined,
      objects,
      sections: ['ImagePolicyWebhook', 'PodNodeSelector', 'PodTolerationRestriction', 'EventRateLimit'].filter(
        (name) => loaded.configurations.for(name) !== undefined,
      ),
    };
  }

  it('PodNodeSelector and PodTolerationRestriction configured: every selector and toleration arrives as written', async () => {
    const read = await serverReads({
      plugins: {
        PodNodeSelector: {
          enabled: true,
          mode: 'enforce',
          clusterDefaultNodeSelector: 'pool=general',
          // Namespace names YAML 1.1 would read as booleans, and an empty whitelist (allows any).
          namespaceWhitelists: { 'team-a': 'pool=team-a, env=prod', no: 'pool=no', on: '' },
        },
        PodTolerationRestriction: {
          enabled: true,
          mode: 'warn',
          defaultTolerations: [
            { key: 'pool', operator: 'Equal', value: 'general', effect: 'NoSchedule' },
            // Helm holds numbers as floats; a million seconds must not become 1e+06 on the way.
            { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 1000000 },
          ],
          whitelist: [
            { operator: 'Exists', effect: 'NoSchedule' },
            { key: 'pool', operator: 'Equal', value: 'true' },
          ],
        },
      },
    });
    expect(read?.sections).toEqual(['PodNodeSelector', 'PodTolerationRestriction']);
    expect(read?.nodeSelector).toEqual({
      clusterDefaultNodeSelector: new Map([['pool', 'general']]),
      whitelists: new Map([
        ['clusterDefaultNodeSelector', new Map([['pool', 'general']])],
        ['no', new Map([['pool', 'no']])],
        ['on', new Map()],
        [
          'team-a',
          new Map([
            ['pool', 'team-a'],
            ['env', 'prod'],
          ]),
        ],
      ]),
    });
    expect(read?.tolerations).toEqual({
      default: [
        { key: 'pool', operator: 'Equal', value: 'general', effect: 'NoSchedule' },
        { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 1000000 },
      ],
      whitelist: [
        { operator: 'Exists', effect: 'NoSchedule' },
        { key: 'pool', operator: 'Equal', value: 'true' },
      ],
    });
  });

  it('enabled without configuration: upstream’s defaults (no default selector or tolerations, no whitelists)', async () => {
    const read = await serverReads(enableOnly(['PodNodeSelector', 'PodTolerationRestriction']));
    expect(read?.nodeSelector).toEqual({ clusterDefaultNodeSelector: new Map(), whitelists: new Map() });
    expect(read?.tolerations).toEqual({ default: [], whitelist: [] });
  });

  it('ImagePolicyWebhook: the file names the kubeconfig in the mounted Secret, and the settings arrive as written', async () => {
    const plugins = {
      ImagePolicyWebhook: {
        enabled: true,
        mode: 'enforce',
        kubeConfigSecret: { name: imagePolicySecret, key: 'backend.yaml' },
        allowTTL: 120,
        denyTTL: -1,
        retryBackoff: 1000,
        defaultAllow: true,
      },
    };
    const read = await serverReads({ plugins });
    expect(read?.imagePolicy).toEqual({
      kubeConfigFile: '/etc/admission-chain/image-policy/backend.yaml',
      allowTTL: 120_000_000_000n,
      denyTTL: 0n,
      retryBackoff: 1_000_000_000n,
      defaultAllow: true,
    });
    const pod = only<KubeObject & { spec: { template: { spec: PodSpecWithVolumes } } }>(read!.objects, 'Deployment').spec.template.spec;
    const volume = pod.volumes.find((v) => v.secret?.secretName === imagePolicySecret);
    const mount = pod.containers[0]?.volumeMounts.find((m) => m.name === volume?.name);
    expect(mount?.mountPath).toBe('/etc/admission-chain/image-policy');
  });

  it.each([['ImagePolicyWebhook'], ['PodNodeSelector'], ['PodTolerationRestriction'], ['EventRateLimit']])(
    'only %s: the file configures that plugin alone',
    async (name) => {
      const read = await serverReads(enableOnly([name]));
      expect(read?.sections).toEqual([name]);
    },
  );

  it('no plugin that takes a configuration: no file, no flag, no ConfigMap', async () => {
    const configured = ['ImagePolicyWebhook', 'PodNodeSelector', 'PodTolerationRestriction', 'EventRateLimit'];
    expect(await serverReads(enableOnly(pluginNames.filter((n) => !configured.includes(n))))).toBeUndefined();
    expect(renderChart().some((o) => o.kind === 'ConfigMap')).toBe(false);
  });

  it('EventRateLimit: the limits arrive as written, or divided among the replicas, rounded up', async () => {
    const limits = [
      { type: 'Server', qps: 100, burst: 200 },
      { type: 'SourceAndObject', qps: 5, burst: 1, cacheSize: 10 },
    ];
    const plugins = { EventRateLimit: { enabled: true, mode: 'enforce', limits } };
    expect((await serverReads({ plugins }))?.eventRateLimit).toEqual({
      limits: [
        { type: 'Server', qps: 100, burst: 200, cacheSize: 0 },
        { type: 'SourceAndObject', qps: 5, burst: 1, cacheSize: 10 },
      ],
    });
    const divided = { plugins: { EventRateLimit: { ...plugins.EventRateLimit, divideAmongReplicas: true } }, replicaCount: 3 };
    expect((await serverReads(divided))?.eventRateLimit?.limits).toEqual([
      { type: 'Server', qps: 34, burst: 67, cacheSize: 0 },
      { type: 'SourceAndObject', qps: 2, burst: 1, cacheSize: 10 },
    ]);
    const autoscaled = { ...divided, autoscaling: { enabled: true, minReplicas: 4, maxReplicas: 8 } };
    expect((await serverReads(autoscaled))?.eventRateLimit?.limits?.map((l) => [l.qps, l.burst])).toEqual([
      [25, 50],
      [2, 1],
    ]);
  });

  it('EventRateLimit without a limit: the chart refuses, as the server would', () => {
    expect(() => renderChart({ values: { plugins: { EventRateLimit: { enabled: true, mode: 'enforce' } } } })).toThrow(
      'plugins.EventRateLimit.limits: give at least one limit',
    );
  });

  it.each([
    ['tenant-pinning.yaml', new Map([['team-a', new Map([['pool', 'team-a']])]]), ['PodNodeSelector', 'PodTolerationRestriction']],
    ['all-plugins.yaml', new Map(), ['ImagePolicyWebhook', 'PodNodeSelector', 'PodTolerationRestriction', 'EventRateLimit']],
  ])('examples/values/%s: the server reads its configuration', async (file, whitelists, sections) => {
    const read = await serverReads({}, [join(repoRoot, 'examples', 'values', file)]);
    expect(read?.sections).toEqual(sections);
    expect(read?.nodeSelector).toEqual({ clusterDefaultNodeSelector: new Map(), whitelists });
    expect(read?.tolerations).toEqual({ default: [], whitelist: [] });
  });
});
