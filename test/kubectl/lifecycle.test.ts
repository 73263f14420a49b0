// Install, run and remove, as the chart does it, with the real kubectl against the stand-in API
// server: the webhook configurations are installed without webhooks and writes pass untouched until a
// replica answers through the Service; then the webhook registers itself; the kubelet's pods/status
// updates never reach it; the pre-delete hook's command removes both configurations for good; and
// with self-managed TLS the webhook issues its certificate and injects its CA itself.
import { X509Certificate } from 'node:crypto';
import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { runMain } from '../support/cli.ts';
import type { KubeObject } from '../deploy/helm.ts';
import { isHook } from '../deploy/helm.ts';
import { secretType, startPretendCluster, type PretendCluster } from './cluster.ts';
import { clusterState, demoCluster, fixture } from './scenarios.ts';
import { webhookConfigurationTypes, type WebhookConfiguration } from './webhook-configurations.ts';

let cluster: PretendCluster | undefined;
afterEach(async () => {
  await cluster?.close();
  cluster = undefined;
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function callsDuring(target: PretendCluster, run: () => Promise<unknown>) {
  const before = target.webhookCalls.length;
  await run();
  return target.webhookCalls.slice(before);
}

const pullPolicy = (target: PretendCluster, name: string) => target.kubectl('get', 'pod', name, '-n', 'admission-chain-demo', '-o', 'jsonpath={.spec.containers[*].imagePullPolicy}');

describe('before a replica answers', () => {
  it('the configurations hold no webhooks, so pods in other namespaces are created untouched, until the webhook registers itself', async () => {
    // Enforcing, so the validating webhook fails closed once registered: what must wait for a replica.
    cluster = await startPretendCluster({ clusterState, startWebhook: false, values: { pluginMode: 'enforce' } });
    const c = cluster;
    expect((await c.kubectl('apply', '-f', 'examples/namespace.yaml')).code).toBe(0);
    expect(c.configurations().map((o) => [o.kind, o.webhooks ?? []])).toEqual([
      ['MutatingWebhookConfiguration', []],
      ['ValidatingWebhookConfiguration', []],
    ]);

    // No pod behind the Service: the write is admitted and nothing is called.
    const unanswered = await callsDuring(c, async () => {
      expect(await c.kubectl('apply', '-f', 'examples/pod.yaml')).toEqual({ code: 0, stdout: 'pod/web created\n', stderr: '' });
    });
    expect(unanswered).toEqual([]);
    expect((await pullPolicy(c, 'web')).stdout).toBe('IfNotPresent');

    // A running webhook the Service does not reach (a wrong port, a NetworkPolicy): its probe fails,
    // so it registers nothing, however long it runs.
    c.routeServiceTo(await closedPort());
    await c.startWebhook();
    await sleep(1_000);
    expect(c.configurations().map((o) => o.webhooks ?? [])).toEqual([[], []]);
    await c.kubectl('delete', 'pod', 'web', '-n', 'admission-chain-demo');
    expect((await c.kubectl('apply', '-f', 'examples/pod.yaml')).code).toBe(0);
    expect((await pullPolicy(c, 'web')).stdout).toBe('IfNotPresent');

    // The Service reaches it: the probe answers and the chart's webhooks are registered as rendered.
    c.routeServiceTo();
    await c.registered();
    const validating = c.configurations().find((o) => o.kind === 'ValidatingWebhookConfiguration');
    expect(validating?.webhooks?.map((w) => [w.name, w.failurePolicy])).toEqual([['validate.admission-chain.io', 'Fail']]);
    const template = JSON.parse((validating?.metadata.annotations as Record<string, string>)['admission-chain.io/webhooks'] ?? '[]') as Array<Record<string, unknown>>;
    expect(validating?.webhooks?.[0]).toMatchObject(template[0]!);
    await c.kubectl('delete', 'pod', 'web', '-n', 'admission-chain-demo');
    const result = await c.kubectl('apply', '--dry-run=server', '-f', 'examples/pod.yaml', '-o', 'jsonpath={.spec.containers[*].imagePullPolicy}');
    expect(result).toEqual({ code: 0, stdout: 'Always', stderr: '' });
  });
});

describe('a hand edit to fail open during an outage', () => {
  it('stays until a replica answers through the Service again, then Fail comes back', async () => {
    cluster = await demoCluster();
    const c = cluster;
    const validatingType = webhookConfigurationTypes.validating;
    const policy = () => (c.standIn.store.get(validatingType, '', 'ac-admission-chain') as unknown as WebhookConfiguration).webhooks?.[0]?.failurePolicy;
    c.routeServiceTo(await closedPort());
    const edited = c.standIn.store.get(validatingType, '', 'ac-admission-chain') as unknown as WebhookConfiguration;
    edited.webhooks![0]!.failurePolicy = 'Ignore';
    c.standIn.store.put(validatingType, edited as unknown as KubeObject);
    await sleep(1_000);
    expect(policy()).toBe('Ignore');
    c.routeServiceTo();
    const deadline = Date.now() + 10_000;
    while (policy() !== 'Fail' && Date.now() < deadline) await sleep(50);
    expect(policy()).toBe('Fail');
  });
});

describe('the kubelet’s pod status updates', () => {
  it('never reach the webhook, though updates of the pod itself do', async () => {
    cluster = await demoCluster();
    const c = cluster;
    // A pod owned by a Deployment (blockOwnerDeletion: an admin may set it), as controllers create them.
    expect((await c.kubectl('apply', '-f', 'test/kubectl/fixtures/pod-owner-denied.yaml')).code).toBe(0);
    const status = await callsDuring(c, async () => {
      const patched = await c.kubectl('patch', 'pod', 'owned-web', '-n', 'admission-chain-demo', '--subresource=status', '--type=merge', '-p', '{"status":{"phase":"Running"}}');
      expect(patched).toEqual({ code: 0, stdout: 'pod/owned-web patched\n', stderr: '' });
    });
    expect(status).toEqual([]);
    const labelled = await callsDuring(c, async () => {
      expect((await c.kubectl('label', 'pod', 'owned-web', '-n', 'admission-chain-demo', 'tier=web')).code).toBe(0);
    });
    expect(labelled.map((call) => [call.webhook, call.review.request?.operation, call.review.request?.subResource])).toEqual([
      ['mutate.admission-chain.io', 'UPDATE', undefined],
      ['validate.admission-chain.io', 'UPDATE', undefined],
    ]);
  });
});

describe('uninstall', () => {
  it('the pre-delete hook removes both configurations while the webhook still runs, they stay gone, and pods are then created without it', async () => {
    cluster = await demoCluster();
    const c = cluster;
    const job = c.rendered.find((o) => isHook(o) && o.kind === 'Job') as KubeObject & { spec: { template: { spec: { containers: Array<{ command: string[]; args: string[] }> } } } };
    expect(job.metadata.annotations?.['helm.sh/hook']).toBe('pre-delete');
    const [container] = job.spec.template.spec.containers;
    expect(container?.command).toEqual(['node', 'dist/cli/run.js', 'unregister']);

    // `helm install` marks what it installs as the release's (the pretend cluster holds the bare
    // rendering); the hook deletes only configurations carrying that ownership.
    for (const type of Object.values(webhookConfigurationTypes)) {
      for (const stored of c.standIn.store.list(type)) {
        const annotations = { ...(stored.metadata?.annotations as Record<string, string> | undefined), 'meta.helm.sh/release-name': 'ac', 'meta.helm.sh/release-namespace': 'admission-chain' };
        c.standIn.store.put(type, { ...stored, metadata: { ...stored.metadata, annotations } } as KubeObject);
      }
    }

    // The Job's command, as the image runs it (dist/cli/run.js is src/cli/run.ts's main), through a kubeconfig.
    const { code, stdout, stderr } = await runMain([...container!.command.slice(2), ...container!.args, `--kubeconfig=${c.kubeconfig}`]);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toBe('ValidatingWebhookConfiguration ac-admission-chain: deleted\nMutatingWebhookConfiguration ac-admission-chain: deleted\n');
    expect(c.configurations()).toEqual([]);

    // The running replicas cannot bring them back (they may only patch, never create).
    await sleep(1_000);
    expect(c.configurations()).toEqual([]);

    // Then Helm removes the Deployment and Service: pods are created with nobody to ask.
    await c.stopWebhook();
    const calls = await callsDuring(c, async () => {
      expect(await c.kubectl('apply', '-f', 'examples/pod.yaml')).toEqual({ code: 0, stdout: 'pod/web created\n', stderr: '' });
    });
    expect(calls).toEqual([]);

    // Run again (a retried hook), it finds nothing to delete and still succeeds.
    const again = await runMain(['unregister', ...container!.args, `--kubeconfig=${c.kubeconfig}`]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe('ValidatingWebhookConfiguration ac-admission-chain: not found\nMutatingWebhookConfiguration ac-admission-chain: not found\n');
  });
});

describe('self-managed TLS', () => {
  it('the webhook fills the chart’s empty Secret with a CA and a serving certificate, injects the CA and is called through it', async () => {
    cluster = await demoCluster({ tls: { mode: 'self-managed' } });
    const c = cluster;
    const secret = c.standIn.store.get(secretType, 'admission-chain', 'ac-admission-chain-tls') as { data: Record<string, string> };
    const decoded = (key: string) => Buffer.from(secret.data[key] ?? '', 'base64').toString('utf8');
    const ca = new X509Certificate(decoded('ca.crt'));
    const serving = new X509Certificate(decoded('tls.crt'));
    expect(ca.ca).toBe(true);
    expect(serving.checkIssued(ca)).toBe(true);
    expect(serving.checkHost('ac-admission-chain.admission-chain.svc', { subject: 'never' })).toBe('ac-admission-chain.admission-chain.svc');
    for (const configuration of c.configurations()) {
      expect(configuration.webhooks?.map((w) => Buffer.from(w.clientConfig.caBundle ?? '', 'base64').toString('utf8'))).toEqual([decoded('ca.crt')]);
    }
    const result = await c.kubectl('apply', '--dry-run=server', '-f', 'examples/pod.yaml', '-o', 'jsonpath={.spec.containers[*].imagePullPolicy}');
    expect(result).toEqual({ code: 0, stdout: 'Always', stderr: '' });
    // Not a hand-made object: the pod the stand-in admitted went through the webhook.
    expect(c.webhookCalls.at(-1)?.review.request?.object).toMatchObject({ metadata: { name: fixture('examples/pod.yaml').metadata?.name } });
  });
});
