// A real cluster for kubectl: kube-apiserver and etcd built from their Go modules (control-plane/),
// holding what `helm install` of the chart creates — rendered by `helm template` and applied with
// kubectl, the webhook configurations included, with the chart's own `webhooks.url` value pointing
// them at a recording front on loopback instead of the Service — and our webhook started exactly as
// the chart's Deployment starts it, so it registers itself through the real admissionregistration API
// and kube-apiserver itself matches, calls and obeys our webhooks.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { stringify } from 'yaml';
import { findBinaries } from '../../control-plane/binaries.ts';
import { type ControlPlane, type ControlPlaneOptions, startControlPlane } from '../../control-plane/control-plane.ts';
import { generateCertificates } from '../../src/tls/generate.ts';
import { deepMerge, startChartWebhook } from '../deploy/chart-webhook.ts';
import { projectConfigMapMounts } from '../deploy/config-map-mounts.ts';
import { defaultNamespace, defaultRelease, isHook, type KubeObject, only, renderChart } from '../deploy/helm.ts';
import { repoRoot } from '../deploy/tools.ts';
import { type KubectlResult, runKubectl } from '../kubectl/kubectl.ts';
import type { WebhookConfiguration } from '../kubectl/webhook-configurations.ts';
import { type FrontTls, startWebhookFront, type WebhookCall, type WebhookFront } from './webhook-front.ts';

export interface RealCluster {
  controlPlane: ControlPlane;
  front: WebhookFront;
  /** Everything the chart rendered (hooks included). */
  rendered: KubeObject[];
  /** Every call kube-apiserver made to our webhooks, oldest first. */
  webhookCalls: WebhookCall[];
  /** The webhook configurations as the API server holds them now. */
  configurations(): Promise<WebhookConfiguration[]>;
  /** Starts the webhook (already started unless startWebhook was false) and points the front at it. */
  startWebhook(): Promise<void>;
  stopWebhook(): Promise<void>;
  /** The running webhook's Prometheus exposition. */
  webhookMetrics(): Promise<string>;
  /** Resolves once every configuration holds its webhooks (the webhook registered them). */
  registered(timeoutMs?: number): Promise<void>;
  /** The control plane's own kubectl, as admin unless --as is given, run in the repository root. */
  kubectl(...args: string[]): Promise<KubectlResult>;
  /** kubectl that fails the test unless it exits 0. */
  kubectlOk(...args: string[]): Promise<string>;
  /** `kubectl apply` of these objects, as admin; what kubectl printed. */
  apply(...objects: object[]): Promise<string>;
  kubeconfig: string;
  close(): Promise<void>;
}

export interface RealClusterOptions {
  /** Chart values over values.yaml (tls is the bring-your-own test certificate, webhooks.url the front). */
  values?: Record<string, unknown>;
  /** Cluster-state files for the local backend; without them the webhook runs the cluster backend against the API server. */
  clusterState?: string[];
  /** kube-apiserver flags beyond the control plane's. */
  apiServerArgs?: string[];
  /** serve flags after the chart's (the last one wins): files the pod would mount from a Secret, say. */
  webhookArgs?: string[];
  startWebhook?: boolean;
}

// The in-tree plugins that do what our webhook does are off, so what the tests see is ours
// (ServiceAccount is off on every test control plane: no controller creates default accounts).
const inTreeTwins = '--disable-admission-plugins=ServiceAccount,StorageObjectInUseProtection,RuntimeClass,PodTopologyLabels';

export async function startRealCluster(options: RealClusterOptions = {}): Promise<RealCluster> {
  const scratch = await mkdtemp(join(tmpdir(), 'admission-chain-real-cluster-'));
  const cleanups: Array<() => Promise<void>> = [() => rm(scratch, { recursive: true, force: true })];
  const close = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  };
  try {
    const controlPlaneOptions: ControlPlaneOptions = {
      apiServerArgs: [inTreeTwins, ...(options.apiServerArgs ?? [])],
      dir: join(scratch, 'control-plane'),
    };
    const controlPlane = await startControlPlane(controlPlaneOptions);
    cleanups.push(() => controlPlane.stop());

    const serviceName = `${defaultRelease}-admission-chain`;
    const certs = await generateCertificates({
      commonName: '127.0.0.1',
      ipAddresses: ['127.0.0.1'],
      dnsNames: [`${serviceName}.${defaultNamespace}.svc`],
    });
    const certFile = join(scratch, 'tls.crt');
    const keyFile = join(scratch, 'tls.key');
    await writeFile(certFile, certs.cert);
    await writeFile(keyFile, certs.key, { mode: 0o600 });
    const front = await startWebhookFront({ cert: certs.cert, key: certs.key, ca: certs.caCert }, (path) =>
      path === '/mutate' ? 'mutate.admission-chain.io' : path === '/validate' ? 'validate.admission-chain.io' : path,
    );
    cleanups.push(() => front.close());

    const values = deepMerge(
      {
        tls: { mode: 'secret', secret: { name: `${serviceName}-tls`, caBundle: Buffer.from(certs.caCert).toString('base64') } },
        webhooks: { url: front.url },
      },
      options.values ?? {},
    );
    const rendered = renderChart({ values });
    const home = join(scratch, 'home');
    const kubeconfig = controlPlane.kubeconfigPath;
    const kubectl = (...args: string[]) => runKubectl(home, kubeconfig, args, { cwd: repoRoot, kubectl: controlPlane.binaries.kubectl });
    const kubectlOk = async (...args: string[]) => {
      const result = await kubectl(...args);
      if (result.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${result.code}): ${result.stderr}`);
      return result.stdout;
    };

    // What `helm install` creates, hooks aside, in the release's namespace.
    await kubectlOk('create', 'namespace', defaultNamespace);
    const release = join(scratch, 'release.yaml');
    await writeFile(
      release,
      rendered
        .filter((o) => !isHook(o))
        .map((o) => `---\n${stringify(o)}`)
        .join(''),
    );
    await kubectlOk('apply', '-n', defaultNamespace, '-f', release);

    let clusterStateFile: string | undefined;
    if (options.clusterState !== undefined) {
      clusterStateFile = join(scratch, 'cluster-state.yaml');
      const documents = await Promise.all(options.clusterState.map((file) => readFile(join(repoRoot, file), 'utf8')));
      await writeFile(clusterStateFile, documents.map((d) => d.trim()).join('\n---\n'));
    }
    const mounts = await projectConfigMapMounts(rendered, join(scratch, 'pod'));
    // With self-managed TLS the webhook issues its certificate into this Secret (NAMESPACE/NAME).
    const selfManagedSecret = deploymentArgs(rendered)
      .find((arg) => arg.startsWith('--self-managed-tls-secret='))
      ?.split('=')[1];
    // The webhook talks to the API server as in its pod: with a token of the chart's ServiceAccount,
    // so the chart's ClusterRole and Role are what every plugin and the registration get.
    const serviceAccount = only<KubeObject & { spec: { template: { spec: { serviceAccountName: string } } } }>(rendered, 'Deployment').spec
      .template.spec.serviceAccountName;
    const token = (await kubectlOk('create', 'token', serviceAccount, '-n', defaultNamespace, '--duration=2h')).trim();
    const webhookKubeconfig = join(scratch, 'webhook.kubeconfig');
    await writeFile(webhookKubeconfig, controlPlane.kubeconfigWithToken(token), { mode: 0o600 });
    const files = { certFile, keyFile, clusterStateFile, kubeconfig: webhookKubeconfig, mounts };
    let webhook: Awaited<ReturnType<typeof startChartWebhook>> | undefined;

    const configurations = async () => {
      const lists = await Promise.all(
        ['mutatingwebhookconfigurations', 'validatingwebhookconfigurations'].map(
          async (resource) => JSON.parse(await kubectlOk('get', resource, '-o', 'json')) as { items: WebhookConfiguration[] },
        ),
      );
      return lists.flatMap((list) => list.items);
    };
    let applied = 0;
    const apply = async (...objects: object[]) => {
      const file = join(scratch, `applied-${++applied}.yaml`);
      await writeFile(file, objects.map((o) => `---\n${stringify(o)}`).join(''));
      return kubectlOk('apply', '-f', file);
    };
    const cluster: RealCluster = {
      controlPlane,
      front,
      rendered,
      webhookCalls: front.calls,
      configurations,
      async startWebhook() {
        webhook ??= await startChartWebhook(rendered, files, undefined, options.webhookArgs);
        // What the Service's pod presents: the certificate the webhook issued (it injects that CA).
        if (selfManagedSecret !== undefined) front.present(await servingCredentials(kubectlOk, selfManagedSecret));
        front.target = webhook.port;
      },
      async stopWebhook() {
        const running = webhook;
        webhook = undefined;
        front.target = undefined;
        await running?.shutdown();
      },
      async webhookMetrics() {
        if (webhook === undefined) throw new Error('the webhook is not running');
        const response = await fetch(`http://127.0.0.1:${webhook.metricsPort}/metrics`);
        return response.text();
      },
      async registered(timeoutMs = 20_000) {
        const deadline = Date.now() + timeoutMs;
        while (!(await configurations()).every((c) => (c.webhooks ?? []).length > 0)) {
          if (Date.now() > deadline) throw new Error(`webhooks not registered within ${timeoutMs}ms`);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      },
      kubectl,
      kubectlOk,
      apply,
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

function deploymentArgs(rendered: KubeObject[]): string[] {
  const deployment = rendered.find((o) => o.kind === 'Deployment') as
    | (KubeObject & { spec: { template: { spec: { containers: Array<{ args?: string[] }> } } } })
    | undefined;
  return deployment?.spec.template.spec.containers[0]?.args ?? [];
}

/** The serving certificate, its key and CA from a self-managed TLS Secret. */
async function servingCredentials(kubectlOk: (...args: string[]) => Promise<string>, secret: string): Promise<FrontTls> {
  const [namespace, name] = secret.split('/') as [string, string];
  const { data } = JSON.parse(await kubectlOk('get', 'secret', name, '-n', namespace, '-o', 'json')) as { data?: Record<string, string> };
  const field = (key: string) => {
    const value = data?.[key];
    if (value === undefined) throw new Error(`secret ${secret} has no ${key}`);
    return Buffer.from(value, 'base64').toString('utf8');
  };
  return { cert: field('tls.crt'), key: field('tls.key'), ca: field('ca.crt') };
}

/**
 * `describe` for tests that need the real control plane. Without its binaries the suite says why it
 * skipped; under CI (where .ci/run builds them) their absence is a failure, never a skip.
 */
export function describeWithControlPlane(name: string, body: () => void): void {
  const binaries = findBinaries();
  if (!('missing' in binaries)) {
    describe(name, body);
  } else if (process.env.CI === 'true') {
    describe(name, () => {
      it('has the control plane binaries (CI builds them first)', () => {
        throw new Error(`kube-apiserver, kubectl and etcd are ${binaries.missing}`);
      });
    });
  } else {
    describe.skip(`${name} — skipped: kube-apiserver, kubectl and etcd are ${binaries.missing}`, body);
  }
}
