// `serve` with self-managed TLS and registration, against the stand-in API server through a real
// kubeconfig: it issues its certificate into the Secret before it listens, registers the webhooks with
// the CA injected, renews the certificate when it enters its renewal window and serves the renewed
// one without a restart (the CA bundle registered still trusts it); and it refuses to start, saying
// why, when it cannot keep its certificate.
import { X509Certificate } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { connect, type PeerCertificate } from 'node:tls';
import { Command } from 'commander';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runServer } from '../../src/cli/serve.ts';
import { addServeOptions, parseServeConfig, type RawServeOptions } from '../../src/config/serve-config.ts';
import { defaultEnabledPlugins, orderedPlugins } from '../../src/plugins/index.ts';
import { templateAnnotation } from '../../src/registration/template.ts';
import { type ResourceType, type StandInApiServer, startStandInApiServer } from '../apiserver/index.ts';

const secrets: ResourceType = { group: '', version: 'v1', resource: 'secrets', kind: 'Secret', namespaced: true };
const validating: ResourceType = {
  group: 'admissionregistration.k8s.io',
  version: 'v1',
  resource: 'validatingwebhookconfigurations',
  kind: 'ValidatingWebhookConfiguration',
  namespaced: false,
};
const repoRoot = new URL('../../', import.meta.url).pathname;

let api: StandInApiServer;
let scratch: string;
let kubeconfig: string;
let stop: (() => Promise<void>) | undefined;
beforeEach(async () => {
  api = await startStandInApiServer({ writableResources: [secrets, validating] });
  scratch = await mkdtemp(join(tmpdir(), 'admission-chain-management-'));
  kubeconfig = join(scratch, 'kubeconfig');
  await writeFile(kubeconfig, api.kubeconfigYaml, { mode: 0o600 });
});
afterEach(async () => {
  await stop?.();
  stop = undefined;
  await api.close();
  await rm(scratch, { recursive: true, force: true });
});

async function serve(extra: string[], redirectTo: () => number) {
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
  const server = await runServer(
    config,
    { stdout: quiet },
    { redirect: (host, port) => (host === 'ac.admission-chain.svc' ? { host: '127.0.0.1', port: redirectTo() } : { host, port }) },
  );
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

const secretValue = (key: string) =>
  Buffer.from((api.store.get(secrets, 'admission-chain', 'ac-tls') as { data: Record<string, string> }).data[key] ?? '', 'base64').toString(
    'utf8',
  );
const registeredBundle = () => {
  const stored = api.store.get(validating, '', 'ac') as { webhooks?: Array<{ clientConfig: { caBundle?: string } }> };
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

describe('serve with self-managed TLS and registration', () => {
  it('issues, registers with the CA injected, renews inside the window and serves the renewal without a restart', async () => {
    api.store.put(secrets, { metadata: { name: 'ac-tls', namespace: 'admission-chain' }, type: 'Opaque' });
    const template = [
      {
        name: 'validate.admission-chain.io',
        admissionReviewVersions: ['v1'],
        sideEffects: 'None',
        failurePolicy: 'Fail',
        clientConfig: { service: { name: 'ac', namespace: 'admission-chain', path: '/validate', port: 443 } },
      },
    ];
    api.store.put(validating, { metadata: { name: 'ac', annotations: { [templateAnnotation]: JSON.stringify(template) } } });
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
    const first = secretValue('tls.crt');
    expect((await servedCertificate(port)).fingerprint256).toBe(fingerprint(first));
    // Registered, the CA of the Secret injected.
    await until('registration', () => registeredBundle() !== '' && registeredBundle());
    expect(registeredBundle()).toBe(secretValue('ca.crt'));

    // Renewed within its window, in the Secret and on the wire, signed by the registered CA.
    const renewed = await until('a renewed certificate', () => secretValue('tls.crt') !== first && secretValue('tls.crt'));
    const served = await until('the renewed certificate served', async () => {
      const certificate = await servedCertificate(port);
      return certificate.fingerprint256 !== fingerprint(first) && certificate;
    });
    expect(served.fingerprint256).toBe(fingerprint(renewed));
    expect(new X509Certificate(renewed).checkIssued(new X509Certificate(registeredBundle()))).toBe(true);
  });

  it('does not start when it cannot keep its certificate, and says why', async () => {
    api.store.put(secrets, { metadata: { name: 'ac-tls', namespace: 'admission-chain' }, type: 'Opaque' });
    api.inject('patch secrets', { kind: 'status', code: 403, message: 'secrets "ac-tls" is forbidden: cannot patch resource "secrets"' });
    await expect(
      serve(['--self-managed-tls-secret=admission-chain/ac-tls', '--self-managed-tls-name=ac.admission-chain.svc'], () => 1),
    ).rejects.toThrow('self-managed TLS: secrets "ac-tls" is forbidden: cannot patch resource "secrets"');
  });
});
