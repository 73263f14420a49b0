// A pretend cluster for kubectl: the stand-in API server with the kubectl surface, our webhook
// started exactly as the chart's Deployment starts it (its rendered args, with local ports,
// certificates and a cluster-state file), and the chart's rendered webhook configurations stored
// so every write is admitted through them. The chart's Service is resolved to the local webhook
// port; the webhook's certificate is issued for <service>.<namespace>.svc and trusted through the
// caBundle the chart rendered, as a real kube-apiserver would verify it.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { Command } from 'commander';
import { runServer } from '../../src/cli/serve.ts';
import { addServeOptions, parseServeConfig, type RawServeOptions } from '../../src/config/serve-config.ts';
import { defaultEnabledPlugins, orderedPlugins } from '../../src/plugins/index.ts';
import { generateCertificates } from '../../src/tls/generate.ts';
import { startStandInApiServer, type StandInApiServer } from '../apiserver/index.ts';
import { defaultNamespace, defaultRelease, only, renderChart, type KubeObject } from '../deploy/helm.ts';
import { repoRoot } from '../deploy/tools.ts';
import { runKubectl, type KubectlResult } from './kubectl.ts';
import { serveKubectlSurface, type KubectlSurface } from './kubectl-surface.ts';
import type { WebhookConfiguration } from './webhook-configurations.ts';
import type { WebhookCall } from './admission-dispatcher.ts';

export interface PretendCluster {
  standIn: StandInApiServer;
  surface: KubectlSurface;
  /** The chart-rendered webhook configurations, as stored. */
  mutating: WebhookConfiguration | undefined;
  validating: WebhookConfiguration | undefined;
  /** Every webhook call the stand-in made, oldest first. */
  webhookCalls: WebhookCall[];
  /** Points the chart's Service at another local port (e.g. a closed one), or back at the webhook. */
  routeServiceTo(port?: number): void;
  /** kubectl with the generated kubeconfig, run in the repository root (so examples/ paths work). */
  kubectl(...args: string[]): Promise<KubectlResult>;
  close(): Promise<void>;
}

export interface PretendClusterOptions {
  /** Chart values over values.yaml (tls is set to the test certificate). */
  values?: Record<string, unknown>;
  /** Cluster-state files (RBAC etc.) the webhook answers authorization from, concatenated. */
  clusterState: string[];
}

interface Container {
  args: string[];
}

export async function startPretendCluster(options: PretendClusterOptions): Promise<PretendCluster> {
  const scratch = await mkdtemp(join(tmpdir(), 'admission-chain-kubectl-'));
  const cleanups: Array<() => Promise<void>> = [() => rm(scratch, { recursive: true, force: true })];
  const close = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  };
  try {
    const serviceName = `${defaultRelease}-admission-chain`;
    const dnsNames = [serviceName, `${serviceName}.${defaultNamespace}`, `${serviceName}.${defaultNamespace}.svc`];
    const certs = await generateCertificates({ commonName: `${serviceName}.${defaultNamespace}.svc`, dnsNames });
    const certFile = join(scratch, 'tls.crt');
    const keyFile = join(scratch, 'tls.key');
    await writeFile(certFile, certs.cert);
    await writeFile(keyFile, certs.key, { mode: 0o600 });

    const rendered = renderChart({
      values: deepMerge({ tls: { mode: 'secret', secret: { name: `${serviceName}-tls`, caBundle: Buffer.from(certs.caCert).toString('base64') } } }, options.values ?? {}),
    });
    const clusterStateFile = join(scratch, 'cluster-state.yaml');
    const documents = await Promise.all(options.clusterState.map((file) => readFile(join(repoRoot, file), 'utf8')));
    await writeFile(clusterStateFile, documents.map((d) => d.trim()).join('\n---\n'));

    const webhook = await startWebhook(rendered, { certFile, keyFile, clusterStateFile });
    cleanups.push(() => webhook.shutdown());

    const service = only<KubeObject & { spec: { ports: Array<{ name?: string; port: number }> } }>(rendered, 'Service', serviceName);
    const servicePort = service.spec.ports.find((p) => p.name === 'https')?.port ?? service.spec.ports[0]?.port;
    const standIn = await startStandInApiServer();
    cleanups.push(() => standIn.close());
    let servicePortTarget = webhook.port;
    const surface = serveKubectlSurface(standIn, (ref) =>
      ref.namespace === defaultNamespace && ref.name === serviceName && (ref.port ?? 443) === servicePort ? { host: '127.0.0.1', port: servicePortTarget } : undefined,
    );
    const webhookCalls: WebhookCall[] = [];
    surface.environment.onCall = (call) => webhookCalls.push(call);
    const mutating = rendered.find((o) => o.kind === 'MutatingWebhookConfiguration') as unknown as WebhookConfiguration | undefined;
    const validating = rendered.find((o) => o.kind === 'ValidatingWebhookConfiguration') as unknown as WebhookConfiguration | undefined;
    for (const configuration of [mutating, validating]) if (configuration !== undefined) surface.putWebhookConfiguration(configuration);
    for (const name of ['default', 'kube-system', 'kube-node-lease', defaultNamespace]) surface.putNamespace(name);

    const home = join(scratch, 'home');
    const kubeconfig = join(scratch, 'kubeconfig');
    await writeFile(kubeconfig, standIn.kubeconfigYaml, { mode: 0o600 });
    return {
      standIn,
      surface,
      mutating,
      validating,
      webhookCalls,
      routeServiceTo: (port) => {
        servicePortTarget = port ?? webhook.port;
      },
      kubectl: (...args) => runKubectl(home, kubeconfig, args, { cwd: repoRoot }),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** `admission-chain serve` with the rendered Deployment's args, then local overrides (last flag wins). */
async function startWebhook(rendered: KubeObject[], files: { certFile: string; keyFile: string; clusterStateFile: string }) {
  const deployment = only<KubeObject & { spec: { template: { spec: { containers: Container[] } } } }>(rendered, 'Deployment');
  const args = [
    ...(deployment.spec.template.spec.containers[0]?.args ?? []),
    '--bind-address=127.0.0.1',
    '--port=0',
    '--metrics-port=0',
    `--tls-cert-file=${files.certFile}`,
    `--tls-private-key-file=${files.keyFile}`,
    `--cluster-state=${files.clusterStateFile}`,
    '--shutdown-delay=0s',
    '--drain-timeout=2s',
  ];
  const serve = addServeOptions(new Command('serve')).exitOverride().allowExcessArguments(false);
  serve.parse(args, { from: 'user' });
  const config = parseServeConfig(serve.opts<RawServeOptions>(), orderedPlugins, defaultEnabledPlugins);
  const quiet = new Writable({ write: (_chunk, _encoding, done) => done() });
  return runServer(config, { stdout: quiet });
}

function deepMerge(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const result: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const current = result[key];
    result[key] =
      isRecord(current) && isRecord(value) ? deepMerge(current, value) : value;
  }
  return result;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
