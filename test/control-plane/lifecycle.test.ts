// Install, run and remove, as the chart does it, with the real kubectl against a real kube-apiserver:
// the webhook configurations are installed without webhooks and writes pass untouched until a
// replica answers where kube-apiserver will call it; then the webhook registers itself; a hand edit
// made during an outage stays until a replica answers again; the kubelet's pods/status updates never
// reach it; the pre-delete hook's command, with the hook's own ServiceAccount, removes both
// configurations for good; and with self-managed TLS the webhook issues its certificate and injects
// its CA itself, and kube-apiserver verifies that certificate on every call.
import { X509Certificate } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import type { KubeObject } from '../deploy/helm.ts';
import { isHook } from '../deploy/helm.ts';
import { clusterState, fixture } from '../kubectl/scenarios.ts';
import type { WebhookConfiguration } from '../kubectl/webhook-configurations.ts';
import { runMain } from '../support/cli.ts';
import { describeWithControlPlane, type RealCluster, startRealCluster } from './real-cluster.ts';
import { demoRealCluster, dryRunPodPullPolicies } from './scenarios.ts';

let cluster: RealCluster | undefined;
const scratches: string[] = [];
afterEach(async () => {
  await cluster?.close();
  cluster = undefined;
  for (const dir of scratches.splice(0)) await rm(dir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function callsDuring(target: RealCluster, run: () => Promise<unknown>) {
  const before = target.webhookCalls.length;
  await run();
  return target.webhookCalls.slice(before);
}

/** Resolves once the webhook's readiness probe has failed `count` more times (the front refused each). */
async function probesRefused(target: RealCluster, count = 3, timeoutMs = 20_000): Promise<void> {
  const until = target.front.probes + count;
  const deadline = Date.now() + timeoutMs;
  while (target.front.probes < until) {
    if (Date.now() > deadline)
      throw new Error(`the webhook probed ${target.front.probes - until + count} times within ${timeoutMs}ms, not ${count}`);
    await sleep(50);
  }
}

/** The admission_chain_webhook_configuration_registered gauge, per kind. */
async function registeredGauge(target: RealCluster): Promise<Record<string, number>> {
  const gauge: Record<string, number> = {};
  for (const match of (await target.webhookMetrics()).matchAll(
    /^admission_chain_webhook_configuration_registered\{kind="([^"]+)"\} (\d+)$/gm,
  ))
    gauge[match[1]!] = Number(match[2]);
  return gauge;
}

const pullPolicy = (target: RealCluster, name: string) =>
  target.kubectl('get', 'pod', name, '-n', 'admission-chain-demo', '-o', 'jsonpath={.spec.containers[*].imagePullPolicy}');
const validatingPolicy = async (target: RealCluster) =>
  (await target.configurations()).find((c) => c.kind === 'ValidatingWebhookConfiguration')?.webhooks?.[0]?.failurePolicy;

describeWithControlPlane('before a replica answers', () => {
  it('the configurations hold no webhooks, so pods in other namespaces are created untouched, until the webhook registers itself', async () => {
    // Enforcing, so the validating webhook fails closed once registered: what must wait for a replica.
    cluster = await startRealCluster({ clusterState, startWebhook: false, values: { pluginMode: 'enforce' } });
    const c = cluster;
    expect((await c.kubectl('apply', '-f', 'examples/namespace.yaml')).code).toBe(0);
    expect((await c.configurations()).map((o) => [o.kind, o.webhooks ?? []])).toEqual([
      ['MutatingWebhookConfiguration', []],
      ['ValidatingWebhookConfiguration', []],
    ]);

    // No pod behind the Service: the write is admitted and nothing is called.
    const unanswered = await callsDuring(c, async () => {
      expect(await c.kubectl('apply', '-f', 'examples/pod.yaml')).toEqual({ code: 0, stdout: 'pod/web created\n', stderr: '' });
    });
    expect(unanswered).toEqual([]);
    expect((await pullPolicy(c, 'web')).stdout).toBe('IfNotPresent');

    // A running webhook that kube-apiserver's address does not reach (a wrong port, a NetworkPolicy):
    // its probe goes where kube-apiserver's calls go and fails, so it registers nothing, however
    // often it tries.
    c.front.behaviour = 'reset';
    await c.startWebhook();
    await probesRefused(c);
    expect((await c.configurations()).map((o) => o.webhooks ?? [])).toEqual([[], []]);
    await c.kubectlOk('delete', 'pod', 'web', '-n', 'admission-chain-demo');
    expect((await c.kubectl('apply', '-f', 'examples/pod.yaml')).code).toBe(0);
    expect((await pullPolicy(c, 'web')).stdout).toBe('IfNotPresent');

    // The address reaches it: the probe answers and the chart's webhooks are registered as rendered.
    c.front.behaviour = 'forward';
    await c.registered();
    const validating = (await c.configurations()).find((o) => o.kind === 'ValidatingWebhookConfiguration');
    expect(validating?.webhooks?.map((w) => [w.name, w.failurePolicy])).toEqual([['validate.admission-chain.io', 'Fail']]);
    const template = JSON.parse(
      (validating?.metadata.annotations as Record<string, string> | undefined)?.['admission-chain.io/webhooks'] ?? '[]',
    ) as Array<Record<string, unknown>>;
    // What kube-apiserver stores is the template plus the defaults it fills in.
    expect(validating?.webhooks?.[0]).toMatchObject(template[0]!);
    await c.kubectlOk('delete', 'pod', 'web', '-n', 'admission-chain-demo');
    const result = await dryRunPodPullPolicies(c);
    expect(result).toEqual({ code: 0, stdout: 'Always', stderr: '' });
  });
});

// One installation for what follows; uninstall comes last, as it does in a cluster's life.
describeWithControlPlane('an installation with its plugins enforcing', () => {
  let c: RealCluster;
  beforeAll(async () => {
    c = await demoRealCluster();
  });
  afterAll(() => c?.close());

  it('a hand edit to fail open during an outage stays until a replica answers where kube-apiserver calls it, then Fail comes back', async () => {
    expect(await validatingPolicy(c)).toBe('Fail');
    c.front.behaviour = 'reset';
    try {
      const edited = await c.kubectl(
        'patch',
        'validatingwebhookconfiguration',
        'ac-admission-chain',
        '--type=json',
        '-p',
        '[{"op":"replace","path":"/webhooks/0/failurePolicy","value":"Ignore"}]',
      );
      expect(edited).toEqual({
        code: 0,
        stdout: 'validatingwebhookconfiguration.admissionregistration.k8s.io/ac-admission-chain patched\n',
        stderr: '',
      });
      // The webhook wants Fail back, and asks first whether a replica answers: nobody does.
      await probesRefused(c);
      expect(await validatingPolicy(c)).toBe('Ignore');
    } finally {
      c.front.behaviour = 'forward';
    }
    const deadline = Date.now() + 10_000;
    while ((await validatingPolicy(c)) !== 'Fail' && Date.now() < deadline) await sleep(100);
    expect(await validatingPolicy(c)).toBe('Fail');
  });

  it('the kubelet’s pod status updates never reach the webhook, though updates of the pod itself do', async () => {
    // A pod owned by a Deployment (blockOwnerDeletion: an admin may set it), as controllers create them.
    expect((await c.kubectl('apply', '-f', 'test/kubectl/fixtures/pod-owner-denied.yaml')).code).toBe(0);
    const status = await callsDuring(c, async () => {
      const patched = await c.kubectl(
        'patch',
        'pod',
        'owned-web',
        '-n',
        'admission-chain-demo',
        '--subresource=status',
        '--type=merge',
        '-p',
        '{"status":{"phase":"Running"}}',
      );
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

  it('uninstall: the pre-delete hook, as its own ServiceAccount, removes both configurations while the webhook still runs; they stay gone, and pods are then created without it', async () => {
    const hooks = c.rendered.filter(isHook);
    const job = hooks.find((o) => o.kind === 'Job') as KubeObject & {
      spec: { template: { spec: { serviceAccountName: string; containers: Array<{ command: string[]; args: string[] }> } } };
    };
    expect(job.metadata.annotations?.['helm.sh/hook']).toBe('pre-delete');
    const [container] = job.spec.template.spec.containers;
    expect(container?.command).toEqual(['node', 'dist/cli/run.js', 'unregister']);

    // `helm install` marks what it installs as the release's (kubectl applied the bare rendering);
    // the hook deletes only configurations carrying that ownership.
    for (const resource of ['mutatingwebhookconfiguration', 'validatingwebhookconfiguration']) {
      await c.kubectlOk(
        'annotate',
        resource,
        'ac-admission-chain',
        'meta.helm.sh/release-name=ac',
        'meta.helm.sh/release-namespace=admission-chain',
      );
    }
    // The hook's ServiceAccount and RBAC, created before the Job as Helm creates hooks by weight.
    await c.apply(...hooks.filter((o) => o.kind !== 'Job'));
    const token = (
      await c.kubectlOk('create', 'token', job.spec.template.spec.serviceAccountName, '-n', 'admission-chain', '--duration=10m')
    ).trim();
    const scratch = await mkdtemp(join(tmpdir(), 'unregister-'));
    scratches.push(scratch);
    const kubeconfig = join(scratch, 'hook.kubeconfig');
    await writeFile(kubeconfig, c.controlPlane.kubeconfigWithToken(token), { mode: 0o600 });

    // The Job's command, as the image runs it (dist/cli/run.js is src/cli/run.ts's main), with the Job's identity.
    const { code, stdout, stderr } = await runMain([...container!.command.slice(2), ...container!.args, `--kubeconfig=${kubeconfig}`]);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toBe(
      'ValidatingWebhookConfiguration ac-admission-chain: deleted\nMutatingWebhookConfiguration ac-admission-chain: deleted\n',
    );
    expect(await c.configurations()).toEqual([]);

    // The running replicas cannot bring them back (they may only patch, never create): once the
    // webhook has seen both gone, they are still gone.
    const deadline = Date.now() + 10_000;
    while (Object.values(await registeredGauge(c)).some((v) => v !== 0) && Date.now() < deadline) await sleep(100);
    expect(await registeredGauge(c)).toEqual({ MutatingWebhookConfiguration: 0, ValidatingWebhookConfiguration: 0 });
    expect(await c.configurations()).toEqual([]);

    // Then Helm removes the Deployment and Service: pods are created with nobody to ask.
    await c.stopWebhook();
    const calls = await callsDuring(c, async () => {
      expect(await c.kubectl('apply', '-f', 'examples/pod.yaml')).toEqual({ code: 0, stdout: 'pod/web created\n', stderr: '' });
    });
    expect(calls).toEqual([]);

    // Run again (a retried hook), it finds nothing to delete and still succeeds.
    const again = await runMain(['unregister', ...container!.args, `--kubeconfig=${kubeconfig}`]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe(
      'ValidatingWebhookConfiguration ac-admission-chain: not found\nMutatingWebhookConfiguration ac-admission-chain: not found\n',
    );
  });
});

/** The chart's self-managed TLS Secret as the webhook filled it. */
async function selfManagedTls(c: RealCluster): Promise<{ cert: string; key: string; ca: string }> {
  const secret = JSON.parse(await c.kubectlOk('get', 'secret', 'ac-admission-chain-tls', '-n', 'admission-chain', '-o', 'json')) as {
    data: Record<string, string>;
  };
  const decoded = (key: string) => Buffer.from(secret.data[key] ?? '', 'base64').toString('utf8');
  return { cert: decoded('tls.crt'), key: decoded('tls.key'), ca: decoded('ca.crt') };
}

describeWithControlPlane('self-managed TLS', () => {
  it('the webhook fills the chart’s empty Secret with a CA and a serving certificate, injects the CA, and kube-apiserver calls it through that certificate', async () => {
    cluster = await demoRealCluster({ tls: { mode: 'self-managed' } });
    const c = cluster;
    const tls = await selfManagedTls(c);
    const ca = new X509Certificate(tls.ca);
    const serving = new X509Certificate(tls.cert);
    expect(ca.ca).toBe(true);
    expect(serving.checkIssued(ca)).toBe(true);
    expect(serving.checkHost('ac-admission-chain.admission-chain.svc', { subject: 'never' })).toBe(
      'ac-admission-chain.admission-chain.svc',
    );
    // The webhooks.url host, which kube-apiserver dials here, is covered too.
    expect(serving.checkIP('127.0.0.1')).toBe('127.0.0.1');
    for (const configuration of (await c.configurations()) as WebhookConfiguration[]) {
      expect(configuration.webhooks?.map((w) => Buffer.from(w.clientConfig.caBundle ?? '', 'base64').toString('utf8'))).toEqual([tls.ca]);
    }
    const result = await dryRunPodPullPolicies(c);
    expect(result).toEqual({ code: 0, stdout: 'Always', stderr: '' });
    // Not a hand-made object: the pod kube-apiserver admitted went through the webhook.
    expect(c.webhookCalls.at(-1)?.review.request?.object).toMatchObject({
      metadata: { name: fixture('examples/pod.yaml').metadata?.name },
    });
  });
});

describeWithControlPlane('self-managed TLS, renewed while kube-apiserver calls', () => {
  it('a serving certificate renewed into the Secret is trusted by kube-apiserver through the CA bundle already injected', async () => {
    // Lifetimes of seconds: the webhook re-issues once less than 3 s is left of 6.
    cluster = await demoRealCluster({
      tls: { mode: 'self-managed', selfManaged: { duration: '6s', renewBefore: '3s', caDuration: '10m' } },
    });
    const c = cluster;
    const servingCertificate = () => selfManagedTls(c);
    const first = await servingCertificate();
    const bundles = async () =>
      ((await c.configurations()) as WebhookConfiguration[]).flatMap((configuration) =>
        (configuration.webhooks ?? []).map((w) => Buffer.from(w.clientConfig.caBundle ?? '', 'base64').toString('utf8')),
      );
    const injected = await bundles();

    let renewed = first;
    await expect
      .poll(
        async () => {
          renewed = await servingCertificate();
          return renewed.cert !== first.cert;
        },
        { timeout: 15_000, interval: 250 },
      )
      .toBe(true);
    // The Service's pod now presents the renewed certificate, as the webhook does without a restart.
    c.front.present(renewed);
    expect(new X509Certificate(renewed.cert).fingerprint256).not.toBe(new X509Certificate(first.cert).fingerprint256);
    expect(await bundles()).toEqual(injected);

    const callsBefore = c.webhookCalls.length;
    const result = await dryRunPodPullPolicies(c);
    expect(result).toEqual({ code: 0, stdout: 'Always', stderr: '' });
    // kube-apiserver verified the renewed certificate: the call came on a connection that presented it.
    const after = c.webhookCalls.slice(callsBefore);
    expect(after.length).toBeGreaterThan(0);
    expect(after.map((call) => call.servedCertificate)).toContain(new X509Certificate(renewed.cert).fingerprint256);
  });
});
