// `serve` in this process on the cluster backend, reaching an API server (the stand-in, or a real
// kube-apiserver) through a kubeconfig file as a pod reaches its own: fresh serving certificates, the
// kubeconfig written with the server's CA and credentials, every log line kept for the test.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { RawServeOptions } from '../../src/config/serve-config.ts';
import { startWebhook } from '../../src/wiring/server.ts';
import type { StandInApiServer } from '../apiserver/index.ts';
import { type CertFiles, writeTestCertificates } from './certs.ts';
import { get } from './https-client.ts';
import { type CapturedLog, capturedLog } from './log.ts';
import { testServeConfig } from './serve-config.ts';

export interface ServedAgainst {
  server: Awaited<ReturnType<typeof startWebhook>>;
  certs: CertFiles;
  /** Every line the server logged. */
  log: CapturedLog;
  /** Polls /readyz until it answers 200 (a failed expectation after timeoutMs). */
  ready(timeoutMs?: number): Promise<void>;
  /** Shuts the server down and removes its files. */
  stop(): Promise<void>;
}

export function serveAgainst(api: StandInApiServer, flags: Partial<RawServeOptions> = {}): Promise<ServedAgainst> {
  return serveWithKubeconfig(api.kubeconfigYaml, flags);
}

/** The same, for any API server the kubeconfig reaches (a real kube-apiserver). */
export async function serveWithKubeconfig(kubeconfigYaml: string, flags: Partial<RawServeOptions> = {}): Promise<ServedAgainst> {
  const certs = await writeTestCertificates();
  const dir = await mkdtemp(join(tmpdir(), 'admission-chain-kubeconfig-'));
  const kubeconfig = join(dir, 'kubeconfig');
  await writeFile(kubeconfig, kubeconfigYaml, { mode: 0o600 });
  const log = capturedLog();
  const server = await startWebhook(
    testServeConfig({ tlsCertFile: certs.certFile, tlsPrivateKeyFile: certs.keyFile, kubeconfig, ...flags }),
    log.destination,
  );
  return {
    server,
    certs,
    log,
    async ready(timeoutMs = 10_000) {
      await expect
        .poll(async () => (await get(`http://127.0.0.1:${server.metricsPort}/readyz`)).status, { timeout: timeoutMs, interval: 50 })
        .toBe(200);
    },
    async stop() {
      await server.shutdown();
      await Promise.all([rm(dir, { recursive: true, force: true }), rm(certs.dir, { recursive: true, force: true })]);
    },
  };
}
