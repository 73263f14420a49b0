// The three webhooks of the peers scenario, each started on the server core in its own memory cgroup
// (its chart's container limit), pointed at the same real kube-apiserver with the same failurePolicy,
// timeout, rules and namespace selector: each is sent only the writes in its own namespace.
//   admission-chain: the production bundle, as bench/run.ts starts it, registered with the chart's
//     webhook configurations (helm template), AlwaysPullImages and DenyServiceExternalIPs enabled.
//   Gatekeeper: its manager with its chart's arguments for the webhook pod, our certificate in
//     --cert-dir, and webhook configurations like its chart's, written by us.
//   Kyverno: its admission controller out of cluster (--serverIP), which issues its own certificate
//     and registers its own webhooks from its policies and its ConfigMap (our namespace selector).
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ControlPlane } from '../../control-plane/control-plane.ts';
import { generateCertificates } from '../../src/tls/generate.ts';
import { renderChart } from '../../test/deploy/helm.ts';
import { createMemoryCgroup, type MemoryCgroup } from '../memory-cgroup.ts';
import { freePort, imageRuntime, type ServerProcess, startNode, startPinned } from '../processes.ts';
import type { PeerBinaries } from './binaries.ts';
import { api, apiOk, kubectl, until } from './kube.ts';

export const engineNames = ['admission-chain', 'gatekeeper', 'kyverno'] as const;
export type EngineName = (typeof engineNames)[number];
export type Configuration = 'floor' | EngineName;

/** The label that sends a namespace's writes to one engine; the floor's namespace matches none. */
export const engineLabel = 'bench.admission-chain.io/engine';
export const namespaceOf = (configuration: Configuration) => `bench-${configuration}`;

/** Every webhook gets these, whatever its chart's default (Gatekeeper's is Ignore and 1–3 s; Kyverno's and ours Fail and 10 s). */
export const failurePolicy = 'Fail';
export const timeoutSeconds = 10;

const selector = (engine: EngineName) => ({ matchLabels: { [engineLabel]: engine } });

export interface Engine {
  name: EngineName;
  version: string;
  process: ServerProcess;
  /** The memory limit of its cgroup (MiB), or undefined where none could be made. */
  memoryLimitMiB: number | undefined;
  /** How it was started, for the report. */
  settings: string;
  stop(): Promise<void>;
}

export interface EngineContext {
  controlPlane: ControlPlane;
  /** A scratch folder for certificates, logs and kubectl's home. */
  dir: string;
  root: string;
  /** The cgroup limit for ours (the chart's container limit). */
  oursMemoryLimitMiB: number;
}

function cgroupFor(name: string, limitMiB: number): MemoryCgroup | undefined {
  const made = createMemoryCgroup(limitMiB, `admission-chain-bench-${process.pid}-${name}`);
  return 'unavailable' in made ? undefined : made;
}

function stopper(server: ServerProcess, cgroup: MemoryCgroup | undefined, after?: () => Promise<void>): () => Promise<void> {
  return async () => {
    await server.stop();
    cgroup?.remove();
    await after?.();
  };
}

async function servingCertificate(dir: string): Promise<{ certFile: string; keyFile: string; caCert: string; cert: string; key: string }> {
  mkdirSync(dir, { recursive: true });
  const certs = await generateCertificates({ commonName: '127.0.0.1', ipAddresses: ['127.0.0.1'], dnsNames: ['localhost'] });
  const certFile = join(dir, 'tls.crt');
  const keyFile = join(dir, 'tls.key');
  writeFileSync(certFile, certs.cert);
  writeFileSync(keyFile, certs.key, { mode: 0o600 });
  return { certFile, keyFile, caCert: certs.caCert, cert: certs.cert, key: certs.key };
}

interface WebhookConfigurationObject {
  kind: string;
  metadata: { name: string; [key: string]: unknown };
  webhooks: Array<Record<string, unknown> & { clientConfig: Record<string, unknown> }>;
}

/**
 * Our chart's two webhook configurations (rendered by helm with our two plugins), pointed at `url`,
 * with the shared failurePolicy, timeout and namespace selector.
 */
function chartWebhookConfigurations(url: string, caCert: string): WebhookConfigurationObject[] {
  const rendered = renderChart({
    values: {
      plugins: {
        AlwaysPullImages: { enabled: true },
        OwnerReferencesPermissionEnforcement: { enabled: false },
        DenyServiceExternalIPs: { enabled: true },
      },
      webhooks: {
        registerWhenReady: false,
        url,
        timeoutSeconds,
        mutating: { failurePolicy },
        validating: { failurePolicy },
      },
      tls: { mode: 'secret', secret: { name: 'bench-tls', caBundle: Buffer.from(caCert).toString('base64') } },
    },
  });
  const configurations = rendered.filter(
    (o) => o.kind === 'MutatingWebhookConfiguration' || o.kind === 'ValidatingWebhookConfiguration',
  ) as unknown as WebhookConfigurationObject[];
  if (configurations.length !== 2) throw new Error(`the chart rendered ${configurations.length} webhook configurations, not 2`);
  for (const configuration of configurations) {
    configuration.metadata = { name: `bench-${configuration.metadata.name}` };
    for (const webhook of configuration.webhooks) {
      webhook.namespaceSelector = selector('admission-chain');
      webhook.failurePolicy = failurePolicy;
      webhook.timeoutSeconds = timeoutSeconds;
      webhook.clientConfig.caBundle = Buffer.from(caCert).toString('base64');
    }
  }
  return configurations;
}

async function register(controlPlane: ControlPlane, configuration: WebhookConfigurationObject): Promise<void> {
  const resource =
    configuration.kind === 'MutatingWebhookConfiguration' ? 'mutatingwebhookconfigurations' : 'validatingwebhookconfigurations';
  await apiOk(controlPlane, 'POST', `/apis/admissionregistration.k8s.io/v1/${resource}`, {
    apiVersion: 'admissionregistration.k8s.io/v1',
    ...configuration,
  });
}

/** admission-chain, started as bench/run.ts starts it (the bundle in dist/, the image's flags and environment). */
export async function startOurs(
  context: EngineContext,
): Promise<{ engine: Engine; rules: { mutating: unknown[]; validating: unknown[] } }> {
  const { controlPlane, dir, root } = context;
  const tls = await servingCertificate(join(dir, 'admission-chain'));
  const [port, metricsPort] = [await freePort(), await freePort()];
  const { nodeFlags, env } = imageRuntime();
  const cgroup = cgroupFor('peers-ours', context.oursMemoryLimitMiB);
  const profile = process.env.BENCH_CPU_PROF === '1' ? ['--cpu-prof', `--cpu-prof-dir=${join(root, 'bench/profiles')}`] : [];
  // As in bench/run.ts: more node flags for ours; with any, what it prints (--trace-gc's lines, say)
  // goes to a log beside the run's scratch folder, which outlives the run.
  const extraNodeOptions = (process.env.BENCH_NODE_OPTIONS ?? '').split(' ').filter(Boolean);
  const logFile = extraNodeOptions.length === 0 ? undefined : `${dir}-admission-chain.log`;
  if (logFile !== undefined) process.stderr.write(`bench: admission-chain's output goes to ${logFile}\n`);
  const args = [
    join(root, 'dist/cli/run.js'),
    'serve',
    '--kubeconfig',
    controlPlane.kubeconfigPath,
    '--plugins',
    'AlwaysPullImages,DenyServiceExternalIPs',
    '--bind-address',
    '127.0.0.1',
    '--port',
    String(port),
    '--metrics-port',
    String(metricsPort),
    '--tls-cert-file',
    tls.certFile,
    '--tls-private-key-file',
    tls.keyFile,
    '--shutdown-delay',
    '0s',
  ];
  const { process: server } = startNode(args, {
    nodeOptions: [...nodeFlags, ...extraNodeOptions, ...profile],
    env,
    ...(logFile && { logFile }),
    ...(cgroup && { cgroup: cgroup.path }),
  });
  await until('admission-chain /readyz', async () => (await fetch(`http://127.0.0.1:${metricsPort}/readyz`)).status === 200, 60_000);
  const configurations = chartWebhookConfigurations(`https://127.0.0.1:${port}`, tls.caCert);
  for (const configuration of configurations) await register(controlPlane, configuration);
  const rulesOf = (kind: string) => configurations.find((c) => c.kind === kind)?.webhooks.flatMap((w) => w.rules as unknown[]) ?? [];
  return {
    engine: {
      name: 'admission-chain',
      version: 'this checkout',
      process: server,
      memoryLimitMiB: cgroup && context.oursMemoryLimitMiB,
      settings: `${Object.entries(env)
        .map(([k, v]) => `${k}=${v} `)
        .join(
          '',
        )}node ${nodeFlags.join(' ')} dist/cli/run.js serve --kubeconfig … --plugins AlwaysPullImages,DenyServiceExternalIPs (log level info); the chart's webhook configurations (helm template)`,
      stop: stopper(server, cgroup),
    },
    rules: { mutating: rulesOf('MutatingWebhookConfiguration'), validating: rulesOf('ValidatingWebhookConfiguration') },
  };
}

/** Applies every YAML file under these folders with server-side apply (the CRDs are too large for the last-applied annotation). */
async function applyCrds(controlPlane: ControlPlane, home: string, folders: string[]): Promise<void> {
  for (const folder of folders) {
    const files = readdirSync(folder, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.yaml'));
    if (files.length === 0) throw new Error(`no CRDs in ${folder}`);
    await kubectl(controlPlane, home, ['apply', '--server-side', '--force-conflicts', '-R', '-f', folder]);
  }
  await kubectl(controlPlane, home, ['wait', '--for=condition=Established', 'crd', '--all', '--timeout=120s']);
}

/** Gatekeeper's manager, its chart's webhook-pod arguments, and webhook configurations like its chart's with our rules. */
export async function startGatekeeper(
  context: EngineContext,
  binaries: PeerBinaries,
  sourceDir: string,
  rules: { mutating: unknown[]; validating: unknown[] },
  policyFile: string,
): Promise<Engine> {
  const { controlPlane, dir } = context;
  const home = join(dir, 'kubectl-home');
  const namespace = 'gatekeeper-system';
  await apiOk(controlPlane, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
  await applyCrds(controlPlane, home, [join(sourceDir, 'charts/gatekeeper/crds')]);
  const tls = await servingCertificate(join(dir, 'gatekeeper-certs'));
  const [port, healthPort, metricsPort] = [await freePort(), await freePort(), await freePort()];
  const limitMiB = 512; // its chart's controllerManager.resources.limits.memory
  const cgroup = cgroupFor('peers-gatekeeper', limitMiB);
  const args = [
    `--kubeconfig=${controlPlane.kubeconfigPath}`,
    // Outside a pod: status objects name a stand-in pod instead of reading their own.
    '--debug-use-fake-pod',
    `--port=${port}`,
    '--host=127.0.0.1',
    `--cert-dir=${join(dir, 'gatekeeper-certs')}`,
    '--disable-cert-rotation',
    `--health-addr=127.0.0.1:${healthPort}`,
    `--prometheus-port=${metricsPort}`,
    '--logtostderr',
    '--log-denies=false',
    '--admission-events-involved-namespace=false',
    '--log-level=INFO',
    `--exempt-namespace=${namespace}`,
    '--operation=webhook',
    '--operation=generate',
    '--enable-external-data=true',
    '--enable-generator-resource-expansion=true',
    '--log-mutations=false',
    '--mutation-annotations=false',
    '--max-serving-threads=-1',
    '--tls-min-version=1.3',
    '--validating-webhook-configuration-name=gatekeeper-validating-webhook-configuration',
    '--mutating-webhook-configuration-name=gatekeeper-mutating-webhook-configuration',
    '--external-data-provider-response-cache-ttl=3m',
    '--enable-k8s-native-validation=true',
    '--operation=mutation-webhook',
  ];
  const { process: server } = startPinned(binaries.gatekeeper, args, {
    env: { POD_NAMESPACE: namespace, POD_NAME: 'gatekeeper-controller-manager-bench', NAMESPACE: namespace, CONTAINER_NAME: 'manager' },
    logFile: join(dir, 'gatekeeper.log'),
    ...(cgroup && { cgroup: cgroup.path }),
  });
  await until('Gatekeeper /readyz', async () => (await fetch(`http://127.0.0.1:${healthPort}/readyz`)).status === 200, 120_000).catch(
    async (error: Error) => {
      await server.stop();
      cgroup?.remove();
      throw new Error(`${error.message}; its log: ${join(dir, 'gatekeeper.log')}`);
    },
  );
  await applyPolicies(controlPlane, home, policyFile, ['benchalwayspullimages', 'benchdenyserviceexternalips']);
  const caBundle = Buffer.from(tls.caCert).toString('base64');
  const url = `https://127.0.0.1:${port}`;
  await register(controlPlane, {
    kind: 'MutatingWebhookConfiguration',
    metadata: { name: 'gatekeeper-mutating-webhook-configuration' },
    webhooks: [
      {
        name: 'mutation.gatekeeper.sh',
        admissionReviewVersions: ['v1', 'v1beta1'],
        clientConfig: { url: `${url}/v1/mutate`, caBundle },
        failurePolicy,
        matchPolicy: 'Exact',
        namespaceSelector: selector('gatekeeper'),
        reinvocationPolicy: 'Never',
        rules: rules.mutating,
        sideEffects: 'None',
        timeoutSeconds,
      },
    ],
  });
  await register(controlPlane, {
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: 'gatekeeper-validating-webhook-configuration' },
    webhooks: [
      {
        name: 'validation.gatekeeper.sh',
        admissionReviewVersions: ['v1', 'v1beta1'],
        clientConfig: { url: `${url}/v1/admit`, caBundle },
        failurePolicy,
        matchPolicy: 'Exact',
        namespaceSelector: selector('gatekeeper'),
        rules: rules.validating,
        sideEffects: 'None',
        timeoutSeconds,
      },
    ],
  });
  return {
    name: 'gatekeeper',
    version: binaries.gatekeeperVersion,
    process: server,
    memoryLimitMiB: cgroup && limitMiB,
    settings: `manager ${args.filter((a) => !a.startsWith('--kubeconfig')).join(' ')}`,
    stop: stopper(server, cgroup),
  };
}

/**
 * Applies the peer's policy file; a ConstraintTemplate's Constraint kind exists only once Gatekeeper
 * has made its CRD, so the templates go first and the rest is retried until it applies.
 */
async function applyPolicies(controlPlane: ControlPlane, home: string, file: string, templates: string[]): Promise<void> {
  await until(
    `policies in ${file}`,
    async () => {
      try {
        await kubectl(controlPlane, home, ['apply', '-f', file]);
        return true;
      } catch (error) {
        return (error as Error).message;
      }
    },
    120_000,
  );
  for (const template of templates) {
    await until(`the CRD of ConstraintTemplate ${template}`, async () => {
      const answer = await api(
        controlPlane,
        'GET',
        `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${template}.constraints.gatekeeper.sh`,
      );
      return answer.status === 200 || `${answer.status}`;
    });
  }
}

/** Kyverno's admission controller out of cluster, its chart's arguments where they apply. */
export async function startKyverno(context: EngineContext, binaries: PeerBinaries, sourceDir: string, policyFile: string): Promise<Engine> {
  const { controlPlane, dir } = context;
  const home = join(dir, 'kubectl-home');
  const namespace = 'kyverno';
  const service = 'kyverno-svc';
  await apiOk(controlPlane, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
  await applyCrds(controlPlane, home, [join(sourceDir, 'config/crds')]);
  // Its chart's ConfigMap, with the chart's resource filters for what concerns a cluster like this one
  // and the shared namespace selector for the webhooks it registers.
  await apiOk(controlPlane, 'POST', `/api/v1/namespaces/${namespace}/configmaps`, {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'kyverno', namespace },
    data: {
      defaultRegistry: 'docker.io',
      enableDefaultRegistryMutation: 'true',
      excludeGroups: 'system:nodes',
      generateSuccessEvents: 'false',
      resourceFilters:
        '[Event,*,*][*/*,kube-system,*][*/*,kube-public,*][*/*,kube-node-lease,*][Node,*,*][Node/?*,*,*][APIService,*,*][APIService/?*,*,*][TokenReview,*,*][SubjectAccessReview,*,*][SelfSubjectAccessReview,*,*][Binding,*,*][Pod/binding,*,*][ReplicaSet,*,*][ReplicaSet/?*,*,*][EphemeralReport,*,*][ClusterEphemeralReport,*,*]',
      webhooks: JSON.stringify({ namespaceSelector: selector('kyverno') }),
    },
  });
  await apiOk(controlPlane, 'POST', `/api/v1/namespaces/${namespace}/configmaps`, {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'kyverno-metrics', namespace },
    data: { namespaces: '{"exclude":[],"include":[]}', metricsRefreshInterval: '0s' },
  });
  const [port, metricsPort, profilePort] = [await freePort(), await freePort(), await freePort()];
  const limitMiB = 384; // its chart's admissionController.container.resources.limits.memory
  const cgroup = cgroupFor('peers-kyverno', limitMiB);
  const args = [
    `--kubeconfig=${controlPlane.kubeconfigPath}`,
    // Out of cluster: the webhooks' URL is https://<serverIP><path>, and its certificate names it.
    `--serverIP=127.0.0.1:${port}`,
    '--webhookServerHost=127.0.0.1',
    `--webhookServerPort=${port}`,
    `--caSecretName=${service}.${namespace}.svc.kyverno-tls-ca`,
    `--tlsSecretName=${service}.${namespace}.svc.kyverno-tls-pair`,
    '--tlsKeyAlgorithm=RSA',
    '--servicePort=443',
    `--webhookTimeout=${timeoutSeconds}`,
    `--metricsPort=${metricsPort}`,
    `--profilePort=${profilePort}`,
    '--controllerRuntimeMetricsAddress=0',
    // Its chart's logging and events.
    '--loggingFormat=text',
    '--v=2',
    '--omitEvents=PolicyApplied,PolicySkipped',
    // Its chart's feature flags that the admission controller takes (ClusterPolicies without CEL rules make no admission policy).
    '--admissionReports=true',
    '--generateValidatingAdmissionPolicy=true',
    '--maxAPICallResponseLength=2000000',
    '--apiCallTimeout=30s',
  ];
  const { process: server } = startPinned(binaries.kyverno, args, {
    env: {
      KYVERNO_NAMESPACE: namespace,
      KYVERNO_SVC: service,
      KYVERNO_DEPLOYMENT: 'kyverno-admission-controller',
      KYVERNO_POD_NAME: 'kyverno-admission-controller-bench',
      KYVERNO_SERVICEACCOUNT_NAME: 'kyverno-admission-controller',
      KYVERNO_ROLE_NAME: 'kyverno:admission-controller',
      INIT_CONFIG: 'kyverno',
      METRICS_CONFIG: 'kyverno-metrics',
    },
    logFile: join(dir, 'kyverno.log'),
    ...(cgroup && { cgroup: cgroup.path }),
  });
  const failed = async (error: Error) => {
    await server.stop();
    cgroup?.remove();
    throw new Error(`${error.message}; its log: ${join(dir, 'kyverno.log')}`);
  };
  // Ready once its policy webhook is registered: ClusterPolicies are validated by it.
  await until(
    'Kyverno registering its policy webhook',
    async () => {
      const answer = await api(
        controlPlane,
        'GET',
        '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/kyverno-policy-validating-webhook-cfg',
      );
      return answer.status === 200 || `${answer.status}`;
    },
    180_000,
  ).catch(failed);
  await until(
    `policies in ${policyFile}`,
    async () => {
      try {
        await kubectl(controlPlane, home, ['apply', '-f', policyFile]);
        return true;
      } catch (error) {
        return (error as Error).message;
      }
    },
    120_000,
  ).catch(failed);
  return {
    name: 'kyverno',
    version: binaries.kyvernoVersion,
    process: server,
    memoryLimitMiB: cgroup && limitMiB,
    settings: `kyverno ${args.filter((a) => !a.startsWith('--kubeconfig')).join(' ')}; ConfigMap: its chart's resource filters for the parts this cluster has, webhooks' namespaceSelector the shared one`,
    stop: stopper(server, cgroup),
  };
}
