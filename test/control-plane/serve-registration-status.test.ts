// Whether the webhooks are registered, as `serve` reports it against a real kube-apiserver (which
// validates the configuration the webhook writes into its admissionregistration API): the
// gauge admission_chain_webhook_configuration_registered on /metrics (one series per configuration
// the enabled plugins use) and a log line at each change — 0 while the probe through the Service
// fails, 1 once the webhook registered, 0 again when the configuration is deleted.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AdmissionregistrationV1Api, KubeConfig } from '@kubernetes/client-node';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { type ControlPlane, startControlPlane } from '../../control-plane/control-plane.ts';
import { templateAnnotation } from '../../src/registration/template.ts';
import { generateCertificates } from '../../src/tls/generate.ts';
import { startWebhook } from '../../src/wiring/server.ts';
import { capturedLog } from '../support/log.ts';
import { testServeConfig } from '../support/serve-config.ts';
import { describeWithControlPlane } from './real-cluster.ts';

const repoRoot = new URL('../../', import.meta.url).pathname;

let controlPlane: ControlPlane;
let api: AdmissionregistrationV1Api;
let scratch: string;
let stop: (() => Promise<void>) | undefined;

async function until(check: () => Promise<void> | void, timeoutMs = 8_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

const series = (exposition: string) =>
  [...exposition.matchAll(/^admission_chain_webhook_configuration_registered\{kind="(\w+)"\} (\d+)$/gm)].map(([, kind, value]) => [
    kind,
    Number(value),
  ]);

describeWithControlPlane('serve reports whether its webhook configurations are registered (real kube-apiserver)', () => {
  beforeAll(async () => {
    controlPlane = await startControlPlane();
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(controlPlane.kubeconfigYaml);
    api = kubeConfig.makeApiClient(AdmissionregistrationV1Api);
  }, 90_000);
  afterAll(async () => {
    await controlPlane?.stop();
  });
  beforeEach(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'admission-chain-registration-status-'));
  });
  afterEach(async () => {
    await stop?.();
    stop = undefined;
    await rm(scratch, { recursive: true, force: true });
  });

  it('0 until the probe answers, 1 once registered, 0 when deleted; one line at each change; no series for an unused phase', async () => {
    // Served for the Service's name, which the probe verifies against the CA bundle it registers.
    const certs = await generateCertificates({ commonName: 'ac.admission-chain.svc', dnsNames: ['ac.admission-chain.svc'] });
    const [certFile, keyFile, caFile] = ['tls.crt', 'tls.key', 'ca.crt'].map((f) => join(scratch, f)) as [string, string, string];
    await writeFile(certFile, certs.cert);
    await writeFile(keyFile, certs.key, { mode: 0o600 });
    await writeFile(caFile, certs.caCert);
    const kubeconfig = join(scratch, 'kubeconfig');
    await writeFile(kubeconfig, controlPlane.kubeconfigYaml, { mode: 0o600 });
    const template = [
      {
        name: 'validate.admission-chain.io',
        admissionReviewVersions: ['v1'],
        sideEffects: 'None',
        failurePolicy: 'Fail',
        clientConfig: { service: { name: 'ac', namespace: 'admission-chain', path: '/validate', port: 443 } },
      },
    ];
    // As the chart installs it: no webhooks yet, the template for them in an annotation.
    await api.createValidatingWebhookConfiguration({
      body: { metadata: { name: 'ac', annotations: { [templateAnnotation]: JSON.stringify(template) } }, webhooks: [] },
    });

    const config = testServeConfig({
      tlsCertFile: certFile,
      tlsPrivateKeyFile: keyFile,
      logLevel: 'info',
      kubeconfig,
      clusterState: join(repoRoot, 'examples/cluster-state.yaml'),
      // Validating only: the chart installs no MutatingWebhookConfiguration then.
      plugins: ['OwnerReferencesPermissionEnforcement'],
      webhookConfiguration: 'ac',
      webhookCaBundleFile: caFile,
      reconcileInterval: '100ms',
    });
    const log = capturedLog();
    // The Service leads nowhere until the test routes it to the webhook.
    let routed = false;
    let port = 1;
    const server = await startWebhook(config, log.destination, {
      redirect: (host, p) => (host === 'ac.admission-chain.svc' ? { host: '127.0.0.1', port: routed ? port : 1 } : { host, port: p }),
    });
    stop = () => server.shutdown();
    port = server.port;
    const scrape = async () => series(await (await fetch(`http://127.0.0.1:${server.metricsPort}/metrics`)).text());
    const changes = () =>
      log
        .lines()
        .filter((l) => String(l.msg).includes('as the chart asked'))
        .map((l) => [l.level, l.msg, l.kind, l.state]);

    await until(() =>
      expect(changes()).toEqual([
        [40, 'webhook configuration not registered as the chart asked', 'ValidatingWebhookConfiguration', 'waiting'],
      ]),
    );
    expect(await scrape()).toEqual([['ValidatingWebhookConfiguration', 0]]);

    routed = true;
    await until(async () => expect(await scrape()).toEqual([['ValidatingWebhookConfiguration', 1]]));
    expect(changes().at(-1)).toEqual([
      30,
      'webhook configuration registered as the chart asked',
      'ValidatingWebhookConfiguration',
      'written',
    ]);
    // What kube-apiserver now holds, with its defaults filled in: the template's webhook, pointed at the Service with the CA.
    const written = await api.readValidatingWebhookConfiguration({ name: 'ac' });
    expect(written.webhooks).toEqual([
      expect.objectContaining({
        name: 'validate.admission-chain.io',
        failurePolicy: 'Fail',
        clientConfig: {
          service: { name: 'ac', namespace: 'admission-chain', path: '/validate', port: 443 },
          caBundle: Buffer.from(certs.caCert).toString('base64'),
        },
      }),
    ]);

    // Deleted by hand (or by a Job run at install): nothing can bring it back, and the gauge says so.
    await api.deleteValidatingWebhookConfiguration({ name: 'ac' });
    await until(async () => expect(await scrape()).toEqual([['ValidatingWebhookConfiguration', 0]]));
    expect(changes()).toEqual([
      [40, 'webhook configuration not registered as the chart asked', 'ValidatingWebhookConfiguration', 'waiting'],
      [30, 'webhook configuration registered as the chart asked', 'ValidatingWebhookConfiguration', 'written'],
      [40, 'webhook configuration not registered as the chart asked', 'ValidatingWebhookConfiguration', 'absent'],
    ]);
  });
});
