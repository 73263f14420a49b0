// The kubeconfig client against a real HTTPS backend that requires a client certificate: files the
// kubeconfig names by relative path are read from its folder, and when those files are replaced
// (a rotated certificate) the new ones are used once the credentials are read again.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  MockService,
  startTestBackend,
  type TestBackend,
  type TestCertificates,
  testCertificates,
} from '../../../test/support/image-review-backend.ts';
import { scratchFiles } from '../../../test/support/scratch-files.ts';
import { ImageReviewTransportError } from '../../ports/image-review.ts';
import { kubeConfigClient, reapplyAfterMs } from './kubeconfig-client.ts';

const files = scratchFiles('kubeconfig-client');
let certs: TestCertificates;
let backend: TestBackend;

beforeAll(async () => {
  certs = await testCertificates();
  backend = await startTestBackend(new MockService(), { cert: certs.server, clientCA: certs.ca.cert });
});
afterAll(() => backend.close());

const body =
  '{"kind":"ImageReview","apiVersion":"imagepolicy.k8s.io/v1alpha1","metadata":{},"spec":{"containers":[{"image":"good"}]},"status":{"allowed":false}}';

describe('kubeConfigClient', () => {
  it('reads the files the kubeconfig names relative to its folder, and reads them again after a while', async () => {
    const dir = join(files.dir, 'secret');
    mkdirSync(dir);
    writeFileSync(join(dir, 'ca.crt'), certs.ca.cert);
    // A client certificate the backend does not trust, to begin with.
    writeFileSync(join(dir, 'client.crt'), certs.untrusted.cert);
    writeFileSync(join(dir, 'client.key'), certs.untrusted.key);
    writeFileSync(
      join(dir, 'kubeconfig'),
      [
        `clusters: [{name: b, cluster: {server: "${backend.url}", certificate-authority: ca.crt}}]`,
        'users: [{name: u, user: {client-certificate: client.crt, client-key: client.key}}]',
        'contexts: [{name: c, context: {cluster: b, user: u}}]',
        'current-context: c',
      ].join('\n'),
    );
    let now = 0;
    const client = kubeConfigClient(join(dir, 'kubeconfig'), () => now);
    expect(client.url).toBe(backend.url);
    await expect(client.post(body, new AbortController().signal)).rejects.toBeInstanceOf(ImageReviewTransportError);

    writeFileSync(join(dir, 'client.crt'), certs.client.cert);
    writeFileSync(join(dir, 'client.key'), certs.client.key);
    now = reapplyAfterMs / 2;
    await expect(client.post(body, new AbortController().signal)).rejects.toBeInstanceOf(ImageReviewTransportError);
    now = reapplyAfterMs + 1;
    const response = await client.post(body, new AbortController().signal);
    expect(response.statusCode).toBe(200);
    expect(JSON.parse(response.body).status.allowed).toBe(true);
  });

  it('an aborted request is the caller going away, in Go words', async () => {
    const dir = join(files.dir, 'inline');
    mkdirSync(dir);
    const base64 = (pem: string) => Buffer.from(pem).toString('base64');
    writeFileSync(
      join(dir, 'kubeconfig'),
      [
        `clusters: [{name: b, cluster: {server: "${backend.url}", certificate-authority-data: ${base64(certs.ca.cert)}}}]`,
        `users: [{name: u, user: {client-certificate-data: ${base64(certs.client.cert)}, client-key-data: ${base64(certs.client.key)}}}]`,
        'contexts: [{name: c, context: {cluster: b, user: u}}]',
        'current-context: c',
      ].join('\n'),
    );
    const controller = new AbortController();
    controller.abort(new Error('gone'));
    await expect(kubeConfigClient(join(dir, 'kubeconfig')).post(body, controller.signal)).rejects.toThrow(
      `Post "${backend.url}": context canceled`,
    );
  });
});
