// Is a replica answering where the API server will call? An AdmissionReview (a dry-run ConfigMap
// create, which no plugin rejects) is sent the way kube-apiserver sends it: to the webhook's Service
// name (<service>.<namespace>.svc, through cluster DNS) or URL, verifying the serving certificate
// against the caBundle being registered. An answer echoing the uid proves the Service routes to a
// ready pod, the certificate is valid for that name and the bundle trusts it. A webhook that demands
// a client certificate (which we cannot present) counts as answering once its certificate verified.
import { randomUUID } from 'node:crypto';
import { request } from 'node:https';
import { isIP } from 'node:net';
import { checkServerIdentity } from 'node:tls';
import type { WebhookJson } from '../ports/webhook-configuration-store.ts';

export type ProbeResult = { ok: true; note?: string } | { ok: false; reason: string };

/** Where a host:port really is (the cluster's DNS in production; a map to loopback in tests). */
export type Redirect = (host: string, port: number) => { host: string; port: number };

export interface ProbeOptions {
  timeoutMs: number;
  redirect?: Redirect;
  /** Ends the probe early (shutdown). */
  signal?: AbortSignal;
}

interface Target {
  host: string;
  port: number;
  path: string;
  display: string;
}

// TLS alerts a server sends when it wants a client certificate we did not present.
const clientCertificateRequired = new Set(['ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED', 'ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE']);

export function probeWebhook(webhook: WebhookJson, options: ProbeOptions): Promise<ProbeResult> {
  let target: Target;
  try {
    target = targetOf(webhook);
  } catch (error) {
    return Promise.resolve({ ok: false, reason: (error as Error).message });
  }
  const clientConfig = webhook.clientConfig as { caBundle?: string };
  const ca = clientConfig.caBundle === undefined ? undefined : Buffer.from(clientConfig.caBundle, 'base64').toString('utf8');
  const versions = (webhook.admissionReviewVersions as string[] | undefined) ?? ['v1'];
  const version = versions.includes('v1') ? 'v1' : 'v1beta1';
  const uid = randomUUID();
  const body = JSON.stringify(probeReview(version, uid));
  const dial = options.redirect?.(target.host, target.port) ?? { host: target.host, port: target.port };

  return new Promise((resolve) => {
    let verified = false;
    const finish = (result: ProbeResult) => {
      clearTimeout(timer);
      resolve(result);
    };
    const req = request(
      {
        host: dial.host,
        port: dial.port,
        path: target.path,
        method: 'POST',
        // Verified against the name the API server uses, wherever the connection really goes.
        ...(isIP(target.host) === 0 ? { servername: target.host } : {}),
        checkServerIdentity: (_host, certificate) => checkServerIdentity(target.host, certificate),
        ca,
        rejectUnauthorized: true,
        agent: false,
        ...(options.signal ? { signal: options.signal } : {}),
        headers: { 'Content-Type': 'application/json', Accept: 'application/json', 'Content-Length': Buffer.byteLength(body) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', (error) => finish({ ok: false, reason: `${target.display}: ${error.message}` }));
        res.on('end', () => finish(verdict(target, res.statusCode ?? 0, Buffer.concat(chunks).toString('utf8'), uid)));
      },
    );
    req.on('socket', (socket) => socket.once('secureConnect', () => (verified = true)));
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (verified && clientCertificateRequired.has(error.code ?? ''))
        finish({ ok: true, note: 'the webhook requires a client certificate' });
      else finish({ ok: false, reason: `${target.display}: ${error.message}` });
    });
    const timer = setTimeout(() => {
      req.destroy();
      finish({ ok: false, reason: `${target.display}: no answer within ${options.timeoutMs}ms` });
    }, options.timeoutMs);
    req.end(body);
  });
}

function targetOf(webhook: WebhookJson): Target {
  const { service, url } = webhook.clientConfig as {
    service?: { name: string; namespace: string; path?: string; port?: number };
    url?: string;
  };
  if (service !== undefined) {
    const host = `${service.name}.${service.namespace}.svc`;
    const port = service.port ?? 443;
    const path = service.path ?? '/';
    return { host, port, path, display: `https://${host}:${port}${path}` };
  }
  if (url === undefined) throw new Error(`webhook ${webhook.name} has neither a service nor a url`);
  const parsed = new URL(url);
  const port = Number(parsed.port || 443);
  return { host: parsed.hostname.replace(/^\[|\]$/g, ''), port, path: `${parsed.pathname}${parsed.search}`, display: url };
}

function verdict(target: Target, status: number, text: string, uid: string): ProbeResult {
  if (status !== 200) return { ok: false, reason: `${target.display}: HTTP ${status}` };
  try {
    const review = JSON.parse(text) as { kind?: string; response?: { uid?: string } };
    if (review.kind === 'AdmissionReview' && review.response?.uid === uid) return { ok: true };
  } catch {
    // fall through: not an AdmissionReview
  }
  return { ok: false, reason: `${target.display}: the answer is not an AdmissionReview for the probe` };
}

function probeReview(version: string, uid: string) {
  const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'admission-chain-probe', namespace: 'default' } };
  return {
    apiVersion: `admission.k8s.io/${version}`,
    kind: 'AdmissionReview',
    request: {
      uid,
      kind: { group: '', version: 'v1', kind: 'ConfigMap' },
      resource: { group: '', version: 'v1', resource: 'configmaps' },
      requestKind: { group: '', version: 'v1', kind: 'ConfigMap' },
      requestResource: { group: '', version: 'v1', resource: 'configmaps' },
      name: 'admission-chain-probe',
      namespace: 'default',
      operation: 'CREATE',
      userInfo: { username: 'system:admission-chain:probe' },
      object: configMap,
      oldObject: null,
      dryRun: true,
      options: { apiVersion: 'meta.k8s.io/v1', kind: 'CreateOptions', dryRun: ['All'] },
    },
  };
}
