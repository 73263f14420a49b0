// Our webhook started exactly as the chart's Deployment starts it: its rendered args, with the
// ConfigMaps it mounts pointed at their projected files, then local overrides (ports, certificates,
// kubeconfig, backend). Shared by the harnesses that stand a cluster behind kubectl.
import { Writable } from 'node:stream';
import { Command } from 'commander';
import { addServeOptions, parseServeConfig, type RawServeOptions } from '../../src/config/serve-config.ts';
import { defaultEnabledPlugins, orderedPlugins } from '../../src/plugins/index.ts';
import type { Redirect } from '../../src/registration/probe.ts';
import { startWebhook } from '../../src/wiring/server.ts';
import type { ProjectedMounts } from './config-map-mounts.ts';
import { type KubeObject, only } from './helm.ts';

interface Container {
  args: string[];
}

export interface ChartWebhookFiles {
  certFile: string;
  keyFile: string;
  clusterStateFile: string | undefined;
  kubeconfig: string;
  mounts: ProjectedMounts;
}

/**
 * `admission-chain serve` with the rendered Deployment's args (paths into mounted ConfigMaps pointed at
 * their projected files), then local overrides (last flag wins).
 */
export async function startChartWebhook(rendered: KubeObject[], files: ChartWebhookFiles, redirect?: Redirect, extraArgs: string[] = []) {
  const deployment = only<KubeObject & { spec: { template: { spec: { containers: Container[] } } } }>(rendered, 'Deployment');
  const chartArgs = (deployment.spec.template.spec.containers[0]?.args ?? []).map((arg) => {
    const [flag, value] = arg.split(/=(.*)/s) as [string, string | undefined];
    return value === undefined ? arg : `${flag}=${files.mounts.localPath(value)}`;
  });
  const args = [
    ...chartArgs,
    '--bind-address=127.0.0.1',
    '--port=0',
    '--metrics-port=0',
    `--tls-cert-file=${files.certFile}`,
    `--tls-private-key-file=${files.keyFile}`,
    ...(files.clusterStateFile === undefined ? [] : [`--cluster-state=${files.clusterStateFile}`]),
    `--kubeconfig=${files.kubeconfig}`,
    '--reconcile-interval=200ms',
    '--shutdown-delay=0s',
    '--drain-timeout=2s',
    ...extraArgs,
  ];
  const serve = addServeOptions(new Command('serve')).exitOverride().allowExcessArguments(false);
  serve.parse(args, { from: 'user' });
  const config = parseServeConfig(serve.opts<RawServeOptions>(), orderedPlugins, defaultEnabledPlugins);
  const quiet = new Writable({ write: (_chunk, _encoding, done) => done() });
  return startWebhook(config, quiet, redirect === undefined ? {} : { redirect });
}

/** Chart values over chart values, as helm merges -f files. */
export function deepMerge(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const result: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const current = result[key];
    result[key] = isRecord(current) && isRecord(value) ? deepMerge(current, value) : value;
  }
  return result;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
