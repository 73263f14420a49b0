// `migrate`: a self-managed kube-apiserver's admission behaviour as this chart's Helm values. The
// plugins it runs are worked out as kube-apiserver works them out (its defaults, then
// --enable-admission-plugins and --disable-admission-plugins, or the deprecated --admission-control
// list), its AdmissionConfiguration is read with the same loader `serve` uses and each section
// decoded by the plugin's own decoder, so a configuration the webhook would refuse is refused here.
// For a target platform, the plugins it already runs in its own kube-apiserver are left out.
import { join } from 'node:path';
import { Document } from 'yaml';
import type { Toleration } from '../api/core.ts';
import type { LabelSet } from '../api/labels.ts';
import { loadAdmissionConfiguration } from '../config/admission-configuration.ts';
import { parseConfiguration as parseEventRateLimitConfiguration } from '../plugins/eventratelimit/configuration.ts';
import {
  decodeConfiguration as decodeImagePolicyConfiguration,
  parseConfiguration as parseImagePolicyConfiguration,
} from '../plugins/imagepolicywebhook/configuration.ts';
import { orderedPlugins } from '../plugins/index.ts';
import { parseConfiguration as parseNodeSelectorConfiguration } from '../plugins/podnodeselector/configuration.ts';
import { parseConfiguration as parseTolerationConfiguration } from '../plugins/podtolerationrestriction/configuration.ts';
import { type Platform, platformRuns } from './platforms.ts';
import { type ApiServerSource, MigrateSourceError } from './sources.ts';
import { notReproduced, platformDefault, upstreamDefaultOn, upstreamPlugins, upstreamRelease } from './upstream-plugins.ts';

export interface MigrateOptions {
  /** The managed platform the values are for; its in-tree plugins are left out. */
  readonly target?: Platform;
  /** A folder holding a copy of the host's files: host paths are looked up under it. */
  readonly root?: string;
}

export interface Migration {
  /** The chart values: pluginMode and one entry per plugin of ours. */
  readonly values: { pluginMode: 'enforce'; plugins: Record<string, PluginValues> };
  /** What was not carried over, or carried over with a caveat, one line each. */
  readonly notes: readonly string[];
  /** The upstream plugins the source runs, in kube-apiserver's order. */
  readonly sourcePlugins: readonly string[];
}

export interface PluginValues {
  enabled: boolean;
  clusterDefaultNodeSelector?: string;
  namespaceWhitelists?: Record<string, string>;
  defaultTolerations?: Toleration[];
  whitelist?: Toleration[];
  limits?: Array<{ type: string; qps: number; burst: number; cacheSize?: number }>;
  kubeConfigSecret?: { name: string; key: string };
  allowTTL?: number;
  denyTTL?: number;
  retryBackoff?: number;
  defaultAllow?: boolean;
}

const ours = orderedPlugins.map((p) => p.name);
/** The Secret the values name for ImagePolicyWebhook's kubeconfig; the notes say to create it. */
const imagePolicySecret = 'image-policy-backend';
const configurable = new Set(['PodNodeSelector', 'PodTolerationRestriction']);
const replicaNote =
  'EventRateLimit: its limits are per replica, as they are per kube-apiserver: with N webhook replicas the cluster allows about N times as much, unless plugins.EventRateLimit.divideAmongReplicas is true (docs/deploy.md, EventRateLimit)';

export async function migrate(source: ApiServerSource, options: MigrateOptions = {}): Promise<Migration> {
  const fail = (detail: string) => new MigrateSourceError(`${source.description}: ${detail}`);
  const sourcePlugins = enabledUpstreamPlugins(source, fail);
  const disabledDefaults = upstreamPlugins.filter((name) => upstreamDefaultOn.has(name) && !sourcePlugins.includes(name));
  const notes: string[] = [];
  const target = options.target;

  // Which of ours to run: those the source runs, less those the target runs itself.
  const configured = await configurations(
    source,
    options,
    sourcePlugins.filter((name) => ours.includes(name)),
    notes,
  );
  const plugins: Record<string, PluginValues> = {};
  for (const name of ours) {
    const runs = sourcePlugins.includes(name);
    let enabled = runs;
    if (runs && target !== undefined) {
      const onPlatform = platformRuns(target, name);
      if (onPlatform === 'yes' && configured.has(name) && target === 'aks' && configurable.has(name)) {
        notes.push(`${name}: AKS runs it from namespace annotations only; ours carries the AdmissionConfiguration`);
      } else if (onPlatform === 'yes') {
        enabled = false;
        notes.push(`${name}: left out, ${target.toUpperCase()} runs it in its own kube-apiserver`);
      } else if (onPlatform === 'unknown') {
        notes.push(
          `${name}: ${target.toUpperCase()} does not document whether it runs it; ours runs after any in-tree copy and, configured alike, adds nothing`,
        );
      } else if (onPlatform === 'cluster option') {
        notes.push(`${name}: ${target.toUpperCase()} also has a cluster option for it; ours enforces it either way`);
      }
    }
    plugins[name] = { enabled, ...(enabled ? configured.get(name) : {}) };
  }

  for (const name of sourcePlugins) {
    if (ours.includes(name) || upstreamDefaultOn.has(name)) continue;
    notes.push(`${name}: not carried over, ${notReproduced[name] ?? 'not implemented by admission-chain'}`);
  }
  for (const name of disabledDefaults) {
    const platform = target === undefined ? 'a managed platform' : target.toUpperCase();
    if (!ours.includes(name) || target === undefined || platformRuns(target, name) === 'yes')
      notes.push(`${name}: disabled in the source, but ${platform} runs it (${platformDefault}) and no webhook can turn it off`);
  }
  return { values: { pluginMode: 'enforce', plugins }, notes, sourcePlugins };
}

/** The plugins the source's kube-apiserver runs, in its order, validated as kube-apiserver validates its flags. */
function enabledUpstreamPlugins(source: ApiServerSource, fail: (detail: string) => Error): string[] {
  const list = (flag: string) => {
    const values = source.flags.get(flag);
    return values === undefined ? undefined : values.flatMap((v) => v.split(',')).filter((name) => name !== '');
  };
  const admissionControl = list('admission-control');
  const enable = list('enable-admission-plugins');
  const disable = list('disable-admission-plugins');
  const errors: string[] = [];
  if (admissionControl !== undefined && (enable !== undefined || disable !== undefined))
    errors.push('admission-control and enable-admission-plugins/disable-admission-plugins flags are mutually exclusive');
  for (const [flag, names] of [
    ['admission-control', admissionControl],
    ['enable-admission-plugins', enable],
    ['disable-admission-plugins', disable],
  ] as const) {
    for (const name of names ?? []) if (!upstreamPlugins.includes(name)) errors.push(`${flag} plugin ${JSON.stringify(name)} is unknown`);
  }
  const overlap = (enable ?? []).filter((name) => (disable ?? []).includes(name));
  if (overlap.length > 0)
    errors.push(`[${[...new Set(overlap)].sort().join(' ')}] in enable-admission-plugins and disable-admission-plugins overlapped`);
  if (errors.length > 0) throw fail(`kube-apiserver would refuse these flags: ${errors.join('; ')}`);
  if (admissionControl !== undefined) return upstreamPlugins.filter((name) => admissionControl.includes(name));
  return upstreamPlugins.filter(
    (name) => (upstreamDefaultOn.has(name) && !(disable ?? []).includes(name)) || (enable ?? []).includes(name),
  );
}

/** Each configurable plugin's values, from the source's AdmissionConfiguration file. */
async function configurations(
  source: ApiServerSource,
  options: MigrateOptions,
  enabled: readonly string[],
  notes: string[],
): Promise<Map<string, Partial<PluginValues>>> {
  const values = new Map<string, Partial<PluginValues>>();
  const file = source.flags.get('admission-control-config-file')?.at(-1);
  if (file === undefined || file === '') {
    if (enabled.includes('EventRateLimit'))
      throw new MigrateSourceError(
        `${source.description}: EventRateLimit is enabled without --admission-control-config-file; kube-apiserver will not start it without limits`,
      );
    if (enabled.includes('ImagePolicyWebhook'))
      throw new MigrateSourceError(
        `${source.description}: ImagePolicyWebhook is enabled without --admission-control-config-file; kube-apiserver will not start it without its imagePolicy configuration`,
      );
    return values;
  }
  const locate = (path: string) => {
    const host = source.hostPath(path);
    return options.root === undefined ? host : join(options.root, host);
  };
  const loaded = await loadAdmissionConfiguration(file, enabled, ours, { locate });
  for (const warning of loaded.warnings)
    notes.push(warning.replace(/which admission-chain does not implement: ignored$/, 'not carried over'));
  if (enabled.includes('PodNodeSelector')) {
    const section = loaded.configurations.for('PodNodeSelector');
    const parsed = parseNodeSelectorConfiguration(section, 'PodNodeSelector');
    const namespaceWhitelists: Record<string, string> = {};
    for (const [namespace, labels] of parsed.whitelists)
      if (namespace !== 'clusterDefaultNodeSelector') namespaceWhitelists[namespace] = labelString(labels);
    if (section !== undefined)
      values.set('PodNodeSelector', { clusterDefaultNodeSelector: labelString(parsed.clusterDefaultNodeSelector), namespaceWhitelists });
  }
  if (enabled.includes('PodTolerationRestriction')) {
    const section = loaded.configurations.for('PodTolerationRestriction');
    const parsed = parseTolerationConfiguration(section, 'PodTolerationRestriction');
    if (section !== undefined)
      values.set('PodTolerationRestriction', {
        defaultTolerations: parsed.default.map(plainToleration),
        whitelist: parsed.whitelist.map(plainToleration),
      });
  }
  if (enabled.includes('ImagePolicyWebhook')) {
    // The decoder refuses what the webhook would; the values keep the file's own units and sentinels.
    const section = loaded.configurations.for('ImagePolicyWebhook');
    const parsed = parseImagePolicyConfiguration(section, 'ImagePolicyWebhook');
    const raw = decodeImagePolicyConfiguration(section?.documents[0], (detail) => new Error(detail));
    values.set('ImagePolicyWebhook', {
      kubeConfigSecret: { name: imagePolicySecret, key: 'kubeconfig' },
      allowTTL: Number(raw.allowTTL),
      denyTTL: Number(raw.denyTTL),
      retryBackoff: Number(raw.retryBackoff),
      defaultAllow: raw.defaultAllow,
    });
    notes.push(
      `ImagePolicyWebhook: put the backend's kubeconfig (${parsed.kubeConfigFile} on the control plane) and the files it names in a Secret ${imagePolicySecret} in the chart's namespace, under the key kubeconfig, with relative paths to its other keys`,
    );
  }
  if (enabled.includes('EventRateLimit')) {
    // Like kube-apiserver, the plugin will not run without limits: the decoder says so.
    const parsed = parseEventRateLimitConfiguration(loaded.configurations.for('EventRateLimit'), 'EventRateLimit');
    values.set('EventRateLimit', {
      limits: (parsed.limits ?? []).map(({ type, qps, burst, cacheSize }) => ({
        type,
        qps,
        burst,
        ...(cacheSize === 0 ? {} : { cacheSize }),
      })),
    });
    notes.push(replicaNote);
  }
  return values;
}

/** A label set as kube-apiserver prints one: keys sorted, key=value joined by commas. */
function labelString(labels: LabelSet): string {
  return [...labels.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, value]) => `${key}=${value}`)
    .join(',');
}

function plainToleration(toleration: Toleration): Toleration {
  const out: Toleration = {};
  for (const field of ['key', 'operator', 'value', 'effect'] as const) if (toleration[field] !== undefined) out[field] = toleration[field];
  if (toleration.tolerationSeconds !== undefined) out.tolerationSeconds = toleration.tolerationSeconds;
  return out;
}

/** The values as a YAML file, where they came from and the notes in its leading comment. */
export function renderValues(source: ApiServerSource, migration: Migration, options: MigrateOptions): string {
  const lines = [
    `Helm values for admission-chain, from ${source.description}`,
    `(kube-apiserver ${upstreamRelease} defaults${options.target === undefined ? '' : `, for ${options.target.toUpperCase()}`}).`,
    `The source runs: ${migration.sourcePlugins.join(', ')}.`,
  ];
  if (migration.notes.length > 0) lines.push('', ...migration.notes);
  const document = new Document(migration.values);
  document.commentBefore = lines.map((line) => (line === '' ? '' : ` ${line}`)).join('\n');
  return document.toString({ lineWidth: 0 });
}
