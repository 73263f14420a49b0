// The oracle's two API servers, one difference between them: server A runs the plugins under test
// in-tree (kube-apiserver's own code, with the AdmissionConfiguration file the chart renders), server
// B runs them in our webhook, installed from the chart with the same configuration in its values.
// Everything else is the same: each has its own etcd, and both keep kube-apiserver's other default
// plugins (DefaultTolerationSeconds, Priority, PodSecurity, LimitRanger, …). Of the default plugins
// we implement, ServiceAccount runs as selected (in-tree on A, ours on B, or on neither: the test
// control planes turn it off because no controller creates the default accounts, so the world
// creates every account its pods name), and RuntimeClass, StorageObjectInUseProtection and
// PodTopologyLabels (whose gate is on at the pinned release) run in-tree on A and in our webhook on
// B, always:
// B's kube-apiserver runs without them (kube-apiserver adds up repeated --disable-admission-plugins
// flags, so the real cluster's own list stands), and a pod must meet the same RuntimeClass on both.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { type ControlPlane, startControlPlane } from '../../control-plane/control-plane.ts';
import { orderedPlugins } from '../../src/plugins/index.ts';
import { type RealCluster, startRealCluster } from '../control-plane/real-cluster.ts';
import { type KubeObject, renderChart } from '../deploy/helm.ts';
import { repoRoot } from '../deploy/tools.ts';
import { runKubectl } from '../kubectl/kubectl.ts';
import { type OraclePolicy, startImagePolicyBackend, withKubeConfigFile } from './image-policy.ts';
import { ApiEndpoint } from './request.ts';
import { type OracleWorld, oracleWorld } from './world.ts';

/** The plugins the oracle compares (the ones the in-tree build and our webhook both implement, world permitting). */
export const oraclePlugins = [
  'LimitPodHardAntiAffinityTopology',
  'AlwaysPullImages',
  'PodNodeSelector',
  'PodTolerationRestriction',
  'ExtendedResourceToleration',
  'DenyServiceExternalIPs',
  'OwnerReferencesPermissionEnforcement',
  'ServiceAccount',
  'PodTopologyLabels',
  'RuntimeClass',
  'StorageObjectInUseProtection',
  'ImagePolicyWebhook',
] as const;
export type OraclePlugin = (typeof oraclePlugins)[number];

/** On in kube-apiserver by default and in our webhook: in-tree on A, ours on B, whatever the selection. */
export const defaultOnTwins = ['RuntimeClass', 'StorageObjectInUseProtection', 'PodTopologyLabels'] as const;

export interface OracleServers {
  /** kube-apiserver with the plugins in-tree. */
  inTree: ApiEndpoint;
  /** kube-apiserver with our webhook. */
  webhook: ApiEndpoint;
  plugins: readonly OraclePlugin[];
  /** The AdmissionConfiguration both servers read (YAML), or undefined when no selected plugin takes one. */
  admissionConfiguration: string | undefined;
  /** The webhook side's cluster, for its call log. */
  cluster: RealCluster;
  /** ImagePolicyWebhook's backend policy, with the reviews both servers sent it, when the plugin is selected. */
  imagePolicy: OraclePolicy | undefined;
  close(): Promise<void>;
}

/** Chart values for B: exactly the selected plugins, enforcing, configured as the world says. */
export function webhookValues(
  plugins: readonly string[],
  pluginConfiguration: OracleWorld['configuration'] = oracleWorld.configuration,
): Record<string, unknown> {
  const selection = Object.fromEntries(orderedPlugins.map((plugin) => [plugin.name, { enabled: plugins.includes(plugin.name), mode: '' }]));
  for (const [plugin, configuration] of Object.entries(pluginConfiguration)) Object.assign(selection[plugin] ?? {}, configuration);
  // Fail closed on both: a mutation skipped because the webhook could not answer shows as an error, not as a quiet difference.
  return { pluginMode: 'enforce', plugins: selection, webhooks: { mutating: { failurePolicy: 'Fail' } } };
}

/** The AdmissionConfiguration file the chart renders from these values, as its ConfigMap holds it. */
export function renderedAdmissionConfiguration(values: Record<string, unknown>): string | undefined {
  const configMap = renderChart({ values }).find(
    (o): o is KubeObject & { data: Record<string, string> } =>
      o.kind === 'ConfigMap' && 'admission-configuration.yaml' in ((o as { data?: object }).data ?? {}),
  );
  return configMap?.data['admission-configuration.yaml'];
}

export async function startOracleServers(
  plugins: readonly OraclePlugin[] = oraclePlugins,
  world: OracleWorld = oracleWorld,
): Promise<OracleServers> {
  const scratch = await mkdtemp(join(tmpdir(), 'admission-chain-oracle-'));
  const cleanups: Array<() => Promise<unknown>> = [() => rm(scratch, { recursive: true, force: true })];
  const close = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  };
  try {
    const values = webhookValues([...plugins, ...defaultOnTwins], world.configuration);
    // ImagePolicyWebhook's backend, one for both servers: the kubeconfig the chart mounts from a
    // Secret is this host's file, on both, so our webhook reads the file kube-apiserver reads.
    const imagePolicy = plugins.includes('ImagePolicyWebhook') ? await startImagePolicyBackend(scratch) : undefined;
    if (imagePolicy !== undefined) cleanups.push(() => imagePolicy.close());
    const rendered = renderedAdmissionConfiguration(values);
    const admissionConfiguration =
      rendered === undefined || imagePolicy === undefined ? rendered : withKubeConfigFile(rendered, imagePolicy.kubeConfigFile);
    const configFile = join(scratch, 'admission-configuration.yaml');
    if (admissionConfiguration !== undefined) await writeFile(configFile, admissionConfiguration);

    const inTreeDir = join(scratch, 'in-tree');
    const preexisting = world.preexisting ?? [];
    const startInTree = (async () => {
      if (preexisting.length > 0) {
        // The same etcd data, first under a kube-apiserver without the plugins.
        const bare = await startControlPlane({ dir: inTreeDir });
        try {
          await applyAs(bare, join(scratch, 'preexisting-in-tree.yaml'), [...world.objects(), ...preexisting]);
        } finally {
          await bare.stop();
        }
      }
      return startControlPlane({
        dir: inTreeDir,
        serviceAccountAdmission: plugins.includes('ServiceAccount'),
        apiServerArgs: [
          `--enable-admission-plugins=${plugins.join(',')}`,
          ...(admissionConfiguration === undefined ? [] : [`--admission-control-config-file=${configFile}`]),
        ],
      });
    })();
    // startRealCluster turns off ServiceAccount, StorageObjectInUseProtection and RuntimeClass. Our
    // webhook starts once the world is there, so its discovery already holds the owners' CRDs, as
    // the in-tree plugin's (which rereads discovery on a miss) does.
    const startWebhook = startRealCluster({
      values,
      startWebhook: false,
      ...(imagePolicy === undefined ? {} : { webhookArgs: [`--admission-control-config-file=${configFile}`] }),
    });
    const [inTreeResult, webhookResult] = await Promise.allSettled([startInTree, startWebhook]);
    if (inTreeResult.status === 'fulfilled') cleanups.push(() => inTreeResult.value.stop());
    if (webhookResult.status === 'fulfilled') cleanups.push(() => webhookResult.value.close());
    if (inTreeResult.status === 'rejected') throw inTreeResult.reason;
    if (webhookResult.status === 'rejected') throw webhookResult.reason;
    const inTreePlane: ControlPlane = inTreeResult.value;
    const cluster = webhookResult.value;

    const inTree = new ApiEndpoint('in-tree', inTreePlane);
    const webhook = new ApiEndpoint('webhook', cluster.controlPlane);
    cleanups.push(async () => {
      inTree.close();
      webhook.close();
    });
    for (const [name, plane] of [
      ['in-tree', inTreePlane],
      ['webhook', cluster.controlPlane],
    ] as const) {
      const objects = [...world.objects(), ...(plane === inTreePlane ? [] : preexisting)];
      await applyAs(plane, join(scratch, `world-${name}.yaml`), objects);
      if (world.crds.length > 0)
        await kubectlAs(plane, scratch, [
          'wait',
          '--for=condition=Established',
          '--timeout=60s',
          ...world.crds.map((crd) => `crd/${crd.metadata.name}`),
        ]);
    }
    await cluster.startWebhook();
    await cluster.registered();
    const existing = world.existing();
    for (const [name, plane] of [
      ['in-tree', inTreePlane],
      ['webhook', cluster.controlPlane],
    ] as const) {
      if (existing.length > 0) await applyAs(plane, join(scratch, `existing-${name}.yaml`), existing);
    }
    return { inTree, webhook, plugins, admissionConfiguration, cluster, imagePolicy: imagePolicy?.policy, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** `kubectl apply` as admin, failing loudly: the world must be whole on both servers. */
async function applyAs(plane: ControlPlane, file: string, objects: object[]): Promise<void> {
  await writeFile(file, objects.map((o) => `---\n${stringify(o)}`).join(''));
  await kubectlAs(plane, join(file, '..'), ['apply', '-f', file]);
}

async function kubectlAs(plane: ControlPlane, scratch: string, args: string[]): Promise<void> {
  const result = await runKubectl(join(scratch, 'home'), plane.kubeconfigPath, args, { cwd: repoRoot, kubectl: plane.binaries.kubectl });
  if (result.code !== 0)
    throw new Error(`kubectl ${args[0]} of the oracle's world failed on ${plane.server} (${result.code}): ${result.stderr}`);
}
