// Starts the real webhook (startWebhook: the CLI's own wiring, default process metrics included) on
// loopback with fresh certificates, and sends it AdmissionReview traffic.
import { Writable } from 'node:stream';
import { startWebhook } from '../../src/wiring/server.ts';
import { type CertFiles, writeTestCertificates } from '../support/certs.ts';
import { get, post, type TestResponse } from '../support/https-client.ts';
import { podReview } from '../support/reviews.ts';
import { testServeConfig } from '../support/serve-config.ts';

export interface TestWebhook {
  certs: CertFiles;
  port: number;
  metricsPort: number;
  review(path: '/mutate' | '/validate', body: unknown): Promise<TestResponse>;
  scrape(): Promise<string>;
  shutdown(): Promise<void>;
}

const discard = new Writable({ write: (_chunk, _encoding, done) => done() });

export async function startTestWebhook(): Promise<TestWebhook> {
  const certs = await writeTestCertificates();
  const config = testServeConfig({
    tlsCertFile: certs.certFile,
    tlsPrivateKeyFile: certs.keyFile,
    clusterState: 'examples/cluster-state.yaml',
    // AlwaysPullImages needs no backend ports, so this stays independent of the others' wiring.
    plugins: ['AlwaysPullImages'],
    drainTimeout: '5s',
  });
  const server = await startWebhook(config, discard);
  return {
    certs,
    port: server.port,
    metricsPort: server.metricsPort,
    review: (path, body) => post(`https://127.0.0.1:${server.port}${path}`, JSON.stringify(body), { ca: certs.caCert }),
    scrape: async () => {
      const res = await get(`http://127.0.0.1:${server.metricsPort}/metrics`);
      if (res.status !== 200) throw new Error(`/metrics answered ${res.status}`);
      return res.text;
    },
    shutdown: () => server.shutdown(),
  };
}

/** Known traffic: `allowed` mutations, `denied` validations (no imagePullPolicy), one unparsable body. */
export async function sendTraffic(webhook: TestWebhook, counts: { allowed: number; denied: number }): Promise<void> {
  for (let i = 0; i < counts.allowed; i++) {
    const res = await webhook.review('/mutate', podReview({ uid: `uid-secret-${i}`, name: `pod-private-name-${i}` }));
    if (res.status !== 200 || res.json().response.allowed !== true) throw new Error(`mutate ${i}: ${res.status} ${res.text}`);
  }
  for (let i = 0; i < counts.denied; i++) {
    const res = await webhook.review('/validate', podReview({ uid: `uid-secret-d${i}`, name: `pod-private-name-d${i}` }));
    if (res.status !== 200 || res.json().response.allowed !== false) throw new Error(`validate ${i}: ${res.status} ${res.text}`);
  }
}
