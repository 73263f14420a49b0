// PodTopologyLabels through a real kube-apiserver (its in-tree twin off, the
// PodTopologyLabelsAdmission gate at the release's default, on from 1.35): the webhook runs the
// cluster backend and reads the Node through its informer with the chart's RBAC. A pod created with
// spec.nodeName gets the node's zone and region (and nothing else of the node's labels, and a zone it
// carried is overwritten); a Binding made through the pods/binding subresource gets them too, and
// kube-apiserver copies the Binding's labels onto the pod it binds; a node nobody knows changes
// nothing.
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithControlPlane, type RealCluster } from './real-cluster.ts';
import { demoRealCluster } from './scenarios.ts';

const namespace = 'topology';
const zone = 'topology.kubernetes.io/zone';
const region = 'topology.kubernetes.io/region';

const pod = (name: string, spec: Record<string, unknown> = {}, labels: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace, labels: { app: 'web', ...labels } },
  spec: { ...spec, containers: [{ name: 'app', image: 'registry.example/app:1' }] },
});

describeWithControlPlane('PodTopologyLabels against a real kube-apiserver', () => {
  let cluster: RealCluster;
  let core: CoreV1Api;

  /** The labels of the pod kube-apiserver would create (a dry run through our webhooks). */
  const dryRunLabels = async (object: object): Promise<Record<string, string>> => {
    const created = await core.createNamespacedPod({ namespace, body: object, dryRun: 'All' });
    return created.metadata?.labels ?? {};
  };

  beforeAll(async () => {
    cluster = await demoRealCluster({ plugins: { PodTopologyLabels: { enabled: true, mode: 'enforce' } } }, { backend: 'cluster' });
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(cluster.controlPlane.kubeconfigYaml);
    core = kubeConfig.makeApiClient(CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: namespace } } });
    await core.createNode({
      body: {
        metadata: {
          name: 'node-a',
          labels: { [zone]: 'eu-west-1a', [region]: 'eu-west-1', 'kubernetes.io/hostname': 'node-a', tier: 'gold' },
        },
      },
    });
    // The webhook learns of the node through its informer's WATCH.
    const deadline = Date.now() + 20_000;
    while (!(zone in (await dryRunLabels(pod('probe', { nodeName: 'node-a' }))))) {
      if (Date.now() > deadline) throw new Error('the webhook never labelled a pod with node-a');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  });
  afterAll(() => cluster?.close());

  it('the chart sends pods and pods/binding CREATE to the mutating webhook', async () => {
    const [mutating] = (await cluster.configurations()).filter((configuration) => configuration.kind === 'MutatingWebhookConfiguration');
    const rules = (mutating?.webhooks ?? []).flatMap((webhook) => webhook.rules ?? []);
    expect(rules.some((rule) => rule.resources.includes('pods/binding') && rule.operations.includes('CREATE'))).toBe(true);
  });

  it("a pod created with spec.nodeName gets the node's zone and region only, its own zone overwritten", async () => {
    expect(await dryRunLabels(pod('placed', { nodeName: 'node-a' }, { [zone]: 'elsewhere' }))).toEqual({
      app: 'web',
      [zone]: 'eu-west-1a',
      [region]: 'eu-west-1',
    });
  });

  it('a pod without a node, or on a node nobody knows, is admitted unlabelled', async () => {
    expect(await dryRunLabels(pod('unscheduled'))).toEqual({ app: 'web' });
    expect(await dryRunLabels(pod('ghost', { nodeName: 'no-such-node' }))).toEqual({ app: 'web' });
  });

  it('a Binding through pods/binding gets the labels, and kube-apiserver copies them onto the pod it binds', async () => {
    await core.createNamespacedPod({ namespace, body: pod('bound') });
    const before = cluster.webhookCalls.length;
    await core.createNamespacedPodBinding({
      name: 'bound',
      namespace,
      body: { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'bound' }, target: { apiVersion: 'v1', kind: 'Node', name: 'node-a' } },
    });
    const bound = await core.readNamespacedPod({ name: 'bound', namespace });
    expect(bound.spec?.nodeName).toBe('node-a');
    expect(bound.metadata?.labels).toEqual({ app: 'web', [zone]: 'eu-west-1a', [region]: 'eu-west-1' });
    // The labels came from our webhook, called for the binding subresource.
    expect(cluster.webhookCalls.slice(before).some((call) => call.review.request?.subResource === 'binding')).toBe(true);
  });
});
