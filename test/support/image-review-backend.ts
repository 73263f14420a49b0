// A real HTTPS ImageReview backend for ImagePolicyWebhook's tests (upstream's NewTestServer), its
// certificates (upstream's gencerts.sh: a CA, a second CA, a server certificate for 127.0.0.1 and a
// client certificate), and kubeconfig files that reach it, written to a scratch folder.
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { generateAuthority, issueServingCertificate, type KeyPairPem } from '../../src/tls/generate.ts';
import type { ScratchFiles } from './scratch-files.ts';

/** A kubeconfig whose backend refuses every connection at once (no retries): ImagePolicyWebhook fails at once. */
export const unreachableImageReviewBackend = join(import.meta.dirname, '../fixtures/imagepolicy/unreachable-backend.kubeconfig.yaml');

export interface TestCertificates {
  readonly ca: KeyPairPem;
  readonly badCA: KeyPairPem;
  readonly server: KeyPairPem;
  readonly client: KeyPairPem;
  /** A server certificate from a CA no client is given (upstream: httptest's own). */
  readonly untrusted: KeyPairPem;
}

export async function testCertificates(): Promise<TestCertificates> {
  const validity = { notBefore: new Date(Date.now() - 60_000), notAfter: new Date(Date.now() + 86_400_000) };
  const ca = await generateAuthority('webhook_imagepolicy_ca', validity);
  const badCA = await generateAuthority('webhook_imagepolicy_ca', validity);
  const other = await generateAuthority('untrusted_ca', validity);
  const issue = (authority: KeyPairPem, commonName: string, clientAuth: boolean) =>
    issueServingCertificate({ authority, commonName, names: ['127.0.0.1'], validity, clientAuth });
  return {
    ca,
    badCA,
    server: await issue(ca, 'webhook_imagepolicy_server', false),
    client: await issue(ca, 'webhook_imagepolicy_client', true),
    untrusted: await issue(other, 'localhost', false),
  };
}

/** What a test backend receives and answers: upstream's Service interface. */
export interface ReviewService {
  /** Sets the status of the review it is given. */
  review(review: ImageReviewJson): void;
  httpStatusCode(): number;
}

export interface ImageReviewJson {
  apiVersion?: string;
  kind?: string;
  spec: { containers?: { image?: string }[]; annotations?: Record<string, string>; namespace?: string };
  status: { allowed: boolean; reason?: string; auditAnnotations?: Record<string, string> | null };
}

/** Upstream's mockService: allows as told, but "good" first is allowed and any "bad" denied. */
export class MockService implements ReviewService {
  allow = false;
  statusCode = 200;
  outAnnotations: Record<string, string> | null = null;
  /** Every request body received, in order. */
  readonly received: ImageReviewJson[] = [];

  review(review: ImageReviewJson): void {
    const containers = review.spec.containers ?? [];
    review.status.allowed = this.allow;
    if (containers[0]?.image === 'good') review.status.allowed = true;
    if (containers.some((c) => c.image === 'bad')) review.status.allowed = false;
    if (!review.status.allowed) review.status.reason = 'not allowed';
    review.status.auditAnnotations = this.outAnnotations;
  }

  httpStatusCode(): number {
    return this.statusCode;
  }
}

export interface TestBackend {
  readonly url: string;
  /** Bodies as they arrived, raw. */
  readonly bodies: string[];
  close(): Promise<void>;
}

export interface BackendTls {
  readonly cert?: KeyPairPem;
  /** Requires client certificates from this CA. */
  readonly clientCA?: string;
}

/** Starts the backend on 127.0.0.1; it answers as upstream's test server does (text errors from http.Error). */
export async function startTestBackend(service: ReviewService & { received?: ImageReviewJson[] }, tls: BackendTls): Promise<TestBackend> {
  const bodies: string[] = [];
  const server: Server = createServer(
    {
      ...(tls.cert === undefined ? {} : { cert: tls.cert.cert, key: tls.cert.key }),
      ...(tls.clientCA === undefined ? {} : { ca: tls.clientCA, requestCert: true, rejectUnauthorized: true }),
    },
    (request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        bodies.push(text);
        let review: ImageReviewJson;
        try {
          review = JSON.parse(text) as ImageReviewJson;
        } catch (error) {
          return textError(response, 400, `failed to decode body: ${(error as Error).message}`);
        }
        service.received?.push(structuredClone(review));
        const code = service.httpStatusCode();
        if (code < 200 || code >= 300) return textError(response, code, 'HTTP Error');
        service.review(review);
        response.writeHead(200, { 'Content-Type': 'application/json' });
        response.end(
          `${JSON.stringify({
            apiVersion: 'imagepolicy.k8s.io/v1alpha1',
            kind: 'ImageReview',
            status: {
              allowed: review.status.allowed,
              reason: review.status.reason ?? '',
              auditAnnotations: review.status.auditAnnotations ?? null,
            },
          })}\n`,
        );
      });
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}`,
    bodies,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Go's http.Error: text/plain, the message and a newline. */
function textError(response: import('node:http').ServerResponse, code: number, message: string): void {
  response.writeHead(code, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
  response.end(`${message}\n`);
}

export interface KubeConfigOptions {
  readonly server: string;
  readonly ca?: string;
  readonly clientCert?: KeyPairPem;
}

/** A kubeconfig for the backend (certificates inline), named and with a current context. */
export function writeKubeConfig(files: ScratchFiles, options: KubeConfigOptions): string {
  const base64 = (pem: string) => Buffer.from(pem).toString('base64');
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: 'backend',
        cluster: { server: options.server, ...(options.ca === undefined ? {} : { 'certificate-authority-data': base64(options.ca) }) },
      },
    ],
    users: [
      {
        name: 'api-server',
        user:
          options.clientCert === undefined
            ? {}
            : { 'client-certificate-data': base64(options.clientCert.cert), 'client-key-data': base64(options.clientCert.key) },
      },
    ],
    contexts: [{ name: 'default', context: { cluster: 'backend', user: 'api-server' } }],
    'current-context': 'default',
  };
  return files.write('kubeconfig.yaml', stringify(config));
}

/** Upstream's defaultConfigTmplYAML: the plugin's configuration document. */
export function imagePolicyDocument(
  kubeConfigFile: string,
  settings: { allowTTL: number; denyTTL: number; retryBackoff: number; defaultAllow: boolean },
) {
  return { imagePolicy: { kubeConfigFile, ...settings } };
}
