// A pretend cluster for kubectl: the stand-in API server with the kubectl surface, holding what
// `helm install` would create of the chart (the webhook configurations as rendered, which with
// registerWhenReady carry their webhooks in an annotation only, and the self-managed TLS Secret),
// and our webhook started exactly as the chart's Deployment starts it (its rendered args, with local
// ports, the ConfigMaps it mounts written where its flags look, a kubeconfig to the stand-in, and a
// cluster-state file unless it runs the cluster backend), so it registers itself, and issues its
// certificate, through the real client-node. The chart's Service name is resolved to the local
// webhook port, both for the API server's calls and for the webhook's own probe; calls verify the
// serving certificate against the caBundle the configurations hold, as kube-apiserver does.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateCertificates } from '../../src/tls/generate.ts';
import { startStandInApiServer, type ResourceType, type StandInApiServer } from '../apiserver/index.ts';
import { startChartWebhook, deepMerge } from '../deploy/chart-webhook.ts';
import { projectConfigMapMounts } from '../deploy/config-map-mounts.ts';
import { defaultNamespace, defaultRelease, isHook, only, renderChart, type KubeObject } from '../deploy/helm.ts';
import { repoRoot } from '../deploy/tools.ts';
import { runKubectl, type KubectlResult } from './kubectl.ts';
import { serveKubectlSurface, type KubectlSurface } from './kubectl-surface.ts';
import { webhookConfigurationTypes, type WebhookConfiguration } from './webhook-configurations.ts';
import type { WebhookCall } from './admission-dispatcher.ts';

export const secretType: ResourceType = { group: '', version: 'v1', resource: 'secrets', kind: 'Secret', namespaced: true };

export interface PretendCluster {
  standIn: StandInApiServer;
  surface: KubectlSurface;
  /** Everything the chart rendered (hooks included). */
  rendered: KubeObject[];
  /** The webhook configurations as stored now. */
  configurations(): WebhookConfiguration[];
  /** Every webhook call the stand-in made, oldest first. */
  webhookCalls: WebhookCall[];
  /** Starts the webhook (already started unless startWebhook was false). */
  startWebhook(): Promise<void>;
  stopWebhook(): Promise<void>;
  /** Resolves once every stored configuration holds its webhooks (the webhook registered them). */
  registered(timeoutMs?: number): Promise<void>;
  /** Points the chart's Service at another local port (e.g. a closed one), or back at the webhook. */
  routeServiceTo(port?: number): void;
  /** kubectl with the generated kubeconfig, run in the repository root (so examples/ paths work). */
  kubectl(...args: string[]): Promise<KubectlResult>;
  /** The kubeconfig file kubectl and the webhook use. */
  kubeconfig: string;
  close(): Promise<void>;
}

export interface PretendClusterOptions {
  /** Chart values over values.yaml (by default tls is the bring-your-own test certificate). */
  values?: Record<string, unknown>;
  /**
   * Cluster-state files (RBAC etc.) the webhook answers authorization and lookups from, concatenated:
   * the local backend. Without them the webhook runs the cluster backend against the stand-in itself,
   * as in a pod: informers on what kubectl wrote (namespaces and their annotations), live reads.
   */
  clusterState?: string[];
  /** Start the webhook at once (default true); false shows the cluster before any replica runs. */
  startWebhook?: boolean;
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
    const values = deepMerge({ tls: { mode: 'secret', secret: { name: `${serviceName}-tls`, caBundle: Buffer.from(certs.caCert).toString('base64') } } }, options.values ?? {});
    if ((values.tls as { mode: string }).mode === 'secret') {
      await writeFile(certFile, certs.cert);
      await writeFile(keyFile, certs.key, { mode: 0o600 });
    }
    const rendered = renderChart({ values });
    let clusterStateFile: string | undefined;
    if (options.clusterState !== undefined) {
      clusterStateFile = join(scratch, 'cluster-state.yaml');
      const documents = await Promise.all(options.clusterState.map((file) => readFile(join(repoRoot, file), 'utf8')));
      await writeFile(clusterStateFile, documents.map((d) => d.trim()).join('\n---\n'));
    }
    // The ConfigMaps the Deployment mounts (the AdmissionConfiguration file), where the pod would see them.
    const mounts = await projectConfigMapMounts(rendered, join(scratch, 'pod'));

    const service = only<KubeObject & { spec: { ports: Array<{ name?: string; port: number }> } }>(rendered, 'Service', serviceName);
    const servicePort = service.spec.ports.find((p) => p.name === 'webhook')?.port ?? 443;
    const standIn = await startStandInApiServer();
    cleanups.push(() => standIn.close());
    let webhook: Awaited<ReturnType<typeof startChartWebhook>> | undefined;
    let routedPort: number | undefined;
    // A closed port until the webhook listens: what a Service without ready endpoints gives.
    const serviceTarget = () => ({ host: '127.0.0.1', port: routedPort ?? webhook?.port ?? 1 });
    const isService = (host: string, port: number) => host === `${serviceName}.${defaultNamespace}.svc` && port === servicePort;
    const surface = serveKubectlSurface(standIn, (ref) =>
      ref.namespace === defaultNamespace && ref.name === serviceName && (ref.port ?? 443) === servicePort && (webhook !== undefined || routedPort !== undefined) ? serviceTarget() : undefined,
    );
    standIn.serveWritableResource(secretType);
    const webhookCalls: WebhookCall[] = [];
    surface.environment.onCall = (call) => webhookCalls.push(call);
    // What `helm install` creates that the webhook reads or writes: the configurations and the Secret.
    for (const object of rendered.filter((o) => !isHook(o))) {
      if (object.kind === 'MutatingWebhookConfiguration' || object.kind === 'ValidatingWebhookConfiguration') surface.putWebhookConfiguration(object as unknown as WebhookConfiguration);
      if (object.kind === 'Secret') standIn.store.put(secretType, object);
    }
    for (const name of ['default', 'kube-system', 'kube-node-lease', defaultNamespace]) surface.putNamespace(name);

    const home = join(scratch, 'home');
    const kubeconfig = join(scratch, 'kubeconfig');
    await writeFile(kubeconfig, standIn.kubeconfigYaml, { mode: 0o600 });
    const files = { certFile, keyFile, clusterStateFile, kubeconfig, mounts };
    const redirect = (host: string, port: number) => (isService(host, port) ? serviceTarget() : { host, port });

    const cluster: PretendCluster = {
      standIn,
      surface,
      rendered,
      configurations: () => Object.values(webhookConfigurationTypes).flatMap((type) => standIn.store.list(type) as unknown as WebhookConfiguration[]),
      webhookCalls,
      async startWebhook() {
        webhook ??= await startChartWebhook(rendered, files, redirect);
      },
      async stopWebhook() {
        const running = webhook;
        webhook = undefined;
        await running?.shutdown();
      },
      async registered(timeoutMs = 10_000) {
        const deadline = Date.now() + timeoutMs;
        while (!cluster.configurations().every((c) => (c.webhooks ?? []).length > 0)) {
          if (Date.now() > deadline) throw new Error(`webhooks not registered within ${timeoutMs}ms`);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      },
      routeServiceTo: (port) => {
        routedPort = port;
      },
      kubectl: (...args) => runKubectl(home, kubeconfig, args, { cwd: repoRoot }),
      kubeconfig,
      close,
    };
    cleanups.push(() => cluster.stopWebhook());
    if (options.startWebhook ?? true) {
      await cluster.startWebhook();
      await cluster.registered();
    }
    return cluster;
  } catch (error) {
    await close();
    throw error;
  }
}
