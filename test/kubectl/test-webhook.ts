// A programmable admission webhook for tests (a sidecar injector, a slow or failing webhook): real
// HTTPS on loopback with its own CA, answering each AdmissionReview with what the test's handler
// returns. It stands in for third-party webhooks installed next to ours, not for our own.
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { AdmissionRequest, AdmissionResponse } from '../../src/admission/review.ts';
import { generateCertificates } from '../../src/tls/generate.ts';
import type { WebhookClientConfig } from './webhook-configurations.ts';

export type TestWebhookAnswer = Omit<AdmissionResponse, 'uid'> & { patchOperations?: unknown[] };

export interface TestWebhook {
  clientConfig(path?: string): WebhookClientConfig;
  /** Every request received, with the path it was sent to (and the ?timeout= query). */
  requests: AdmissionRequest[];
  urls: string[];
  close(): Promise<void>;
}

export async function startTestWebhook(
  handler: (request: AdmissionRequest, path: string) => TestWebhookAnswer | Promise<TestWebhookAnswer>,
): Promise<TestWebhook> {
  const certs = await generateCertificates({ commonName: 'localhost', ipAddresses: ['127.0.0.1'] });
  const requests: AdmissionRequest[] = [];
  const urls: string[] = [];
  const server = createServer({ cert: certs.cert, key: certs.key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { apiVersion: string; request: AdmissionRequest };
        requests.push(review.request);
        urls.push(req.url ?? '');
        const { patchOperations, ...answer } = await handler(review.request, new URL(req.url ?? '/', 'https://webhook').pathname);
        const response: AdmissionResponse = { uid: review.request.uid, ...answer };
        if (patchOperations !== undefined) {
          response.patchType = 'JSONPatch';
          response.patch = Buffer.from(JSON.stringify(patchOperations)).toString('base64');
        }
        if (!res.destroyed) {
          res.writeHead(200, { 'Content-Type': 'application/json' });
          res.end(JSON.stringify({ apiVersion: review.apiVersion, kind: 'AdmissionReview', response }));
        }
      })().catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    clientConfig: (path = '/') => ({ url: `https://127.0.0.1:${port}${path}`, caBundle: Buffer.from(certs.caCert).toString('base64') }),
    requests,
    urls,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
