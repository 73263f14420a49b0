// `serve` with self-managed TLS and registration, against a real kube-apiserver through a
// kubeconfig: it issues its certificate into the Secret before it listens, registers the webhooks with
// the CA injected, renews the certificate when it enters its renewal window and serves the renewed
// one without a restart (the CA bundle registered still trusts it); and it refuses to start, saying
// why, when RBAC does not let it keep its certificate. kube-apiserver validates the configuration
// the webhook writes, the injected caBundle included.
import { X509Certificate } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { connect, type PeerCertificate } from 'node:tls';
import { Command } from 'commander';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { type ControlPlane, startControlPlane } from '../../control-plane/control-plane.ts';
import { addServeOptions, parseServeConfig, type RawServeOptions } from '../../src/config/serve-config.ts';
import { defaultEnabledPlugins, orderedPlugins } from '../../src/plugins/index.ts';
import { templateAnnotation } from '../../src/registration/template.ts';
import { startWebhook } from '../../src/wiring/server.ts';
import { repoRoot } from '../deploy/tools.ts';
import { runKubectl } from '../kubectl/kubectl.ts';
import { describeWithControlPlane } from './real-cluster.ts';

let controlPlane: ControlPlane;
let scratch: string;
let stop: (() => Promise<void>) | undefined;
let servers = 0;

async function kubectl(...args: string[]): Promise<string> {
  const result = await runKubectl(join(scratch, 'home'), controlPlane.kubeconfigPath, args, {
    cwd: repoRoot,
    kubectl: controlPlane.binaries.kubectl,
  });
  if (result.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${result.code}): ${result.stderr}`);
  return result.stdout;
}

async function applyJson(name: string, object: object): Promise<void> {
  const file = join(scratch, `${name}.json`);
  await writeFile(file, JSON.stringify(object));
  await kubectl('apply', '-f', file);
}

async function serve(extra: string[], redirectTo: () => number, kubeconfigYaml = controlPlane.kubeconfigYaml) {
  servers += 1;
  const kubeconfig = join(scratch, `kubeconfig-${servers}`);
  await writeFile(kubeconfig, kubeconfigYaml, { mode: 0o600 });
  const args = [
    '--bind-address=127.0.0.1',
    '--port=0',
    '--metrics-port=0',
    `--tls-cert-file=${join(scratch, 'tls.crt')}`,
    `--tls-private-key-file=${join(scratch, 'tls.key')}`,
    `--cluster-state=${join(repoRoot, 'examples/cluster-state.yaml')}`,
    `--kubeconfig=${kubeconfig}`,
    '--shutdown-delay=0s',
    '--drain-timeout=2s',
    '--reconcile-interval=200ms',
    ...extra,
  ];
  const command = addServeOptions(new Command('serve')).exitOverride().allowExcessArguments(false);
  command.parse(args, { from: 'user' });
  const config = parseServeConfig(command.opts<RawServeOptions>(), orderedPlugins, defaultEnabledPlugins);
  const quiet = new Writable({ write: (_c, _e, done) => done() });
  const server = await startWebhook(config, quiet, {
    redirect: (host, port) => (host === 'ac.admission-chain.svc' ? { host: '127.0.0.1', port: redirectTo() } : { host, port }),
  });
  stop = () => server.shutdown();
  return server;
}

function servedCertificate(port: number): Promise<PeerCertificate> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, servername: 'ac.admission-chain.svc', rejectUnauthorized: false }, () => {
      const certificate = socket.getPeerCertificate();
      socket.end();
      resolve(certificate);
    });
    socket.once('error', reject);
  });
}

const secretValue = async (key: string) => {
  const secret = JSON.parse(await kubectl('get', 'secret', 'ac-tls', '-n', 'admission-chain', '-o', 'json')) as {
    data?: Record<string, string>;
  };
  return Buffer.from(secret.data?.[key] ?? '', 'base64').toString('utf8');
};
const registeredBundle = async () => {
  const stored = JSON.parse(await kubectl('get', 'validatingwebhookconfiguration', 'ac', '-o', 'json')) as {
    webhooks?: Array<{ clientConfig: { caBundle?: string } }>;
  };
  return Buffer.from(stored.webhooks?.[0]?.clientConfig.caBundle ?? '', 'base64').toString('utf8');
};
const fingerprint = (pem: string) => new X509Certificate(pem).fingerprint256;

async function until<T>(what: string, check: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 8_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describeWithControlPlane('serve with self-managed TLS and registration, against a real kube-apiserver', () => {
  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'admission-chain-management-'));
    controlPlane = await startControlPlane({ dir: join(scratch, 'control-plane') });
    await kubectl('create', 'namespace', 'admission-chain');
    await applyJson('secret', {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'ac-tls', namespace: 'admission-chain' },
      type: 'Opaque',
    });
  }, 120_000);
  afterEach(async () => {
    await stop?.();
    stop = undefined;
  });
  afterAll(async () => {
    await controlPlane?.stop();
    if (scratch !== undefined) await rm(scratch, { recursive: true, force: true });
  });

  it('issues, registers with the CA injected, renews inside the window and serves the renewal without a restart', async () => {
    const template = [
      {
        name: 'validate.admission-chain.io',
        admissionReviewVersions: ['v1'],
        sideEffects: 'None',
        failurePolicy: 'Fail',
        clientConfig: { service: { name: 'ac', namespace: 'admission-chain', path: '/validate', port: 443 } },
      },
    ];
    await applyJson('validating', {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'ac', annotations: { [templateAnnotation]: JSON.stringify(template) } },
    });
    let port = 0;
    const server = await serve(
      [
        '--webhook-configuration=ac',
        '--self-managed-tls-secret=admission-chain/ac-tls',
        '--self-managed-tls-name=ac.admission-chain.svc',
        // Lifetimes of seconds, so a renewal happens during the test: re-issued once less than 2 s is left.
        '--self-managed-tls-duration=4s',
        '--self-managed-tls-renew-before=2s',
        '--self-managed-tls-ca-duration=60s',
      ],
      () => port,
    );
    port = server.port;

    // Issued before the server listened, and served as issued.
    const first = await secretValue('tls.crt');
    expect((await servedCertificate(port)).fingerprint256).toBe(fingerprint(first));
    // Registered, the CA of the Secret injected.
    const bundle = await until('registration', async () => {
      const registered = await registeredBundle();
      return registered !== '' && registered;
    });
    expect(bundle).toBe(await secretValue('ca.crt'));

    // Renewed within its window, in the Secret and on the wire, signed by the registered CA.
    const renewed = await until('a renewed certificate', async () => {
      const now = await secretValue('tls.crt');
      return now !== first && now;
    });
    const served = await until('the renewed certificate served', async () => {
      const certificate = await servedCertificate(port);
      return certificate.fingerprint256 !== fingerprint(first) && certificate;
    });
    expect(served.fingerprint256).toBe(fingerprint(renewed));
    expect(new X509Certificate(renewed).checkIssued(new X509Certificate(await registeredBundle()))).toBe(true);
  });

  it('does not start when RBAC lets it read its Secret but not write it, and says why', async () => {
    await kubectl('create', 'secret', 'generic', 'ac-tls-readonly', '-n', 'admission-chain');
    await kubectl('create', 'role', 'reads-tls', '-n', 'admission-chain', '--verb=get', '--resource=secrets');
    await kubectl('create', 'rolebinding', 'reads-tls', '-n', 'admission-chain', '--role=reads-tls', '--user=tls-reader');
    await expect(
      serve(
        ['--self-managed-tls-secret=admission-chain/ac-tls-readonly', '--self-managed-tls-name=ac.admission-chain.svc'],
        () => 1,
        await controlPlane.kubeconfigFor('tls-reader'),
      ),
    ).rejects.toThrow(
      'self-managed TLS: secrets "ac-tls-readonly" is forbidden: User "tls-reader" cannot patch resource "secrets" in API group "" in the namespace "admission-chain"',
    );
  });
});
