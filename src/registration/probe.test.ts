// The readiness probe over real HTTPS: what counts as a replica answering where the API server will
// call (the Service name resolved, the certificate verified against the bundle being registered, an
// AdmissionReview echoing the uid), and each way it does not.
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { WebhookJson } from '../ports/webhook-configuration-store.ts';
import { generateCertificates } from '../tls/generate.ts';
import { probeWebhook } from './probe.ts';

const certs = await generateCertificates({
  commonName: 'ac.admission-chain.svc',
  dnsNames: ['ac.admission-chain.svc'],
  ipAddresses: ['127.0.0.1'],
});
const otherCa = await generateCertificates({ commonName: 'other' });
const clientCa = await generateCertificates({ commonName: 'apiserver-client' });
const bundle = (pem: string) => Buffer.from(pem).toString('base64');

type Answer = (body: { request: { uid: string } }, path: string) => { status: number; body: unknown } | 'hang';
let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
});

async function serve(answer: Answer, tlsOptions: Record<string, unknown> = {}): Promise<number> {
  server = createServer({ cert: certs.cert, key: certs.key, ...tlsOptions }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const result = answer(JSON.parse(Buffer.concat(chunks).toString('utf8')), req.url ?? '');
      if (result === 'hang') return;
      res.writeHead(result.status, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(result.body));
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

const echo: Answer = (review) => ({
  status: 200,
  body: { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: review.request.uid, allowed: true } },
});
const serviceWebhook = (caBundle: string | undefined): WebhookJson => ({
  name: 'validate.admission-chain.io',
  admissionReviewVersions: ['v1', 'v1beta1'],
  clientConfig: { service: { name: 'ac', namespace: 'admission-chain', path: '/validate', port: 443 }, ...(caBundle ? { caBundle } : {}) },
});
const toLoopback = (port: number) => (host: string, servicePort: number) =>
  host === 'ac.admission-chain.svc' && servicePort === 443 ? { host: '127.0.0.1', port } : { host, port: servicePort };

describe('probeWebhook', () => {
  it('a Service-mode webhook answering an AdmissionReview with the uid, under a certificate the bundle trusts, is answering', async () => {
    const paths: string[] = [];
    const port = await serve((review, path) => {
      paths.push(path);
      return echo(review, path);
    });
    expect(await probeWebhook(serviceWebhook(bundle(certs.caCert)), { timeoutMs: 2_000, redirect: toLoopback(port) })).toEqual({
      ok: true,
    });
    expect(paths).toEqual(['/validate']);
  });

  it('a URL-mode webhook is called at its URL', async () => {
    const port = await serve(echo);
    const webhook: WebhookJson = { name: 'w', clientConfig: { url: `https://127.0.0.1:${port}/mutate`, caBundle: bundle(certs.caCert) } };
    expect(await probeWebhook(webhook, { timeoutMs: 2_000 })).toEqual({ ok: true });
  });

  it.each([
    [
      'a bundle that does not trust the certificate',
      serviceWebhook(bundle(otherCa.caCert)),
      echo,
      /ac\.admission-chain\.svc:443\/validate: .*(self-signed|unable to verify|issuer)/i,
    ],
    ['no bundle (system roots only)', serviceWebhook(undefined), echo, /self-signed|unable to verify|issuer/i],
    ['an HTTP error', serviceWebhook(bundle(certs.caCert)), () => ({ status: 404, body: { kind: 'Status' } }), /HTTP 404$/],
    [
      'an answer for another uid',
      serviceWebhook(bundle(certs.caCert)),
      () => ({ status: 200, body: { kind: 'AdmissionReview', response: { uid: 'other' } } }),
      /not an AdmissionReview for the probe/,
    ],
    ['no answer in time', serviceWebhook(bundle(certs.caCert)), () => 'hang' as const, /no answer within 300ms/],
  ])('%s is not answering', async (_label, webhook, answer, reason) => {
    const port = await serve(answer as Answer);
    const result = await probeWebhook(webhook, { timeoutMs: 300, redirect: toLoopback(port) });
    expect(result.ok).toBe(false);
    expect(result.ok ? '' : result.reason).toMatch(reason);
  });

  it('a name the certificate does not cover is not answering', async () => {
    const port = await serve(echo);
    const webhook = {
      ...serviceWebhook(bundle(certs.caCert)),
      clientConfig: { service: { name: 'elsewhere', namespace: 'admission-chain', path: '/validate' }, caBundle: bundle(certs.caCert) },
    };
    const result = await probeWebhook(webhook, { timeoutMs: 2_000, redirect: () => ({ host: '127.0.0.1', port }) });
    expect(result).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/elsewhere\.admission-chain\.svc.*(altnames|does not match)/i),
    });
  });

  it('nothing listening is not answering', async () => {
    const port = await serve(echo);
    await new Promise((resolve) => server!.close(resolve));
    server = undefined;
    const result = await probeWebhook(serviceWebhook(bundle(certs.caCert)), { timeoutMs: 2_000, redirect: toLoopback(port) });
    expect(result).toMatchObject({ ok: false, reason: expect.stringContaining('ECONNREFUSED') });
  });

  it('a webhook that demands a client certificate counts as answering once its own certificate verified', async () => {
    const port = await serve(echo, { requestCert: true, rejectUnauthorized: true, ca: clientCa.caCert });
    expect(await probeWebhook(serviceWebhook(bundle(certs.caCert)), { timeoutMs: 2_000, redirect: toLoopback(port) })).toEqual({
      ok: true,
      note: 'the webhook requires a client certificate',
    });
    // ...but not when its certificate is not the one the bundle trusts.
    expect((await probeWebhook(serviceWebhook(bundle(otherCa.caCert)), { timeoutMs: 2_000, redirect: toLoopback(port) })).ok).toBe(false);
  });
});
