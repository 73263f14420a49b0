// One HTTPS call to an admission webhook, made the way kube-apiserver's webhook client makes it: a
// service reference is dialled at the address the service resolver gives but verified against the
// DNS name <service>.<namespace>.svc with the caBundle; the timeout is sent as ?timeout= and bounds
// the call; the answer must be an AdmissionReview of the same apiVersion echoing the request's uid.
import { request as httpsRequest } from 'node:https';
import type { AdmissionResponse, AdmissionReview } from '../../src/admission/review.ts';
import type { ServiceReference, Webhook } from './webhook-configurations.ts';

/** Where a Service's port is really listening (kube-apiserver asks endpoints; tests map it to loopback). */
export type ServiceResolver = (service: ServiceReference) => { host: string; port: number } | undefined;

/** webhookutil.ErrCallingWebhook: the call itself failed; failurePolicy decides what that means. */
export class CallingWebhookError extends Error {
  readonly webhookName: string;
  constructor(webhookName: string, reason: string) {
    super(`failed calling webhook "${webhookName}": ${reason}`);
    this.webhookName = webhookName;
  }
}

const supportedReviewVersions = ['v1', 'v1beta1'];

export async function callWebhook(webhook: Webhook, review: AdmissionReview, resolve: ServiceResolver, signal?: AbortSignal): Promise<AdmissionResponse> {
  const reviewVersion = webhook.admissionReviewVersions.find((v) => supportedReviewVersions.includes(v));
  if (reviewVersion === undefined) {
    throw new CallingWebhookError(webhook.name, `could not create admission objects: webhook does not accept known AdmissionReview versions ${JSON.stringify(webhook.admissionReviewVersions)}`);
  }
  const body: AdmissionReview = { ...review, apiVersion: `admission.k8s.io/${reviewVersion}` as AdmissionReview['apiVersion'] };
  const target = endpoint(webhook, resolve);
  const timeoutSeconds = webhook.timeoutSeconds ?? 10;
  const path = `${target.path}${target.path.includes('?') ? '&' : '?'}timeout=${timeoutSeconds}s`;
  const displayUrl = `${target.displayBase}${path}`;
  const deadline = AbortSignal.timeout(timeoutSeconds * 1000);
  const combined = signal === undefined ? deadline : AbortSignal.any([deadline, signal]);

  let status: number;
  let text: string;
  try {
    ({ status, text } = await post(target, path, JSON.stringify(body), combined));
  } catch (error) {
    const reason = deadline.aborted ? 'context deadline exceeded' : goNetworkError(error as NodeJS.ErrnoException, target);
    throw new CallingWebhookError(webhook.name, `failed to call webhook: Post "${displayUrl}": ${reason}`);
  }
  if (status < 200 || status > 299) {
    throw new CallingWebhookError(webhook.name, `failed to call webhook: an error on the server (${JSON.stringify(text.slice(0, 200))}) has prevented the request from succeeding`);
  }
  let answer: AdmissionReview;
  try {
    answer = JSON.parse(text) as AdmissionReview;
  } catch (error) {
    throw new CallingWebhookError(webhook.name, `failed to call webhook: ${(error as Error).message}`);
  }
  return verifyResponse(webhook.name, body, answer);
}

/** webhookrequest.VerifyAdmissionResponse. */
function verifyResponse(webhookName: string, sent: AdmissionReview, answer: AdmissionReview): AdmissionResponse {
  const invalid = (reason: string) => new CallingWebhookError(webhookName, `received invalid webhook response: ${reason}`);
  if (answer.kind !== 'AdmissionReview' || answer.apiVersion !== sent.apiVersion) {
    throw invalid(`expected webhook response of ${sent.apiVersion}, Kind=AdmissionReview, got ${answer.apiVersion}, Kind=${answer.kind}`);
  }
  const response = answer.response;
  if (response === undefined) throw invalid('webhook response was absent');
  if (response.uid !== sent.request?.uid) throw invalid(`expected response.uid="${sent.request?.uid}", got "${response.uid}"`);
  if (response.patch !== undefined && response.patchType === undefined) throw invalid('webhook returned response.patch but not response.patchType');
  if (response.patch === undefined && response.patchType !== undefined) throw invalid('webhook returned response.patchType but not response.patch');
  if (response.patchType !== undefined && response.patchType !== 'JSONPatch') throw invalid(`webhook returned invalid response.patchType of "${String(response.patchType)}"`);
  return response;
}

interface Target {
  host: string;
  port: number;
  servername: string;
  path: string;
  displayBase: string;
  ca: string | undefined;
}

function endpoint(webhook: Webhook, resolve: ServiceResolver): Target {
  const ca = webhook.clientConfig.caBundle === undefined ? undefined : Buffer.from(webhook.clientConfig.caBundle, 'base64').toString('utf8');
  const service = webhook.clientConfig.service;
  if (service !== undefined) {
    const port = service.port ?? 443;
    const dnsName = `${service.name}.${service.namespace}.svc`;
    const resolved = resolve(service);
    if (resolved === undefined) throw new CallingWebhookError(webhook.name, `failed to call webhook: service "${service.namespace}/${service.name}" has no endpoints`);
    return { ...resolved, servername: dnsName, path: service.path ?? '/', displayBase: `https://${dnsName}:${port}`, ca };
  }
  if (webhook.clientConfig.url === undefined) throw new CallingWebhookError(webhook.name, 'could not get REST client: webhook clientConfig has neither url nor service');
  const url = new URL(webhook.clientConfig.url);
  return { host: url.hostname, port: Number(url.port || 443), servername: url.hostname, path: `${url.pathname}${url.search}`, displayBase: `${url.protocol}//${url.host}`, ca };
}

function post(target: Target, path: string, body: string, signal: AbortSignal): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      {
        host: target.host,
        port: target.port,
        path,
        method: 'POST',
        servername: target.servername === '127.0.0.1' ? undefined : target.servername,
        ca: target.ca,
        headers: { 'Content-Type': 'application/json', Accept: 'application/json, */*', 'Content-Length': Buffer.byteLength(body) },
        signal,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

// What Go's net/http and crypto/tls would have said, so messages read like a real cluster's.
function goNetworkError(error: NodeJS.ErrnoException, target: Target): string {
  switch (error.code) {
    case 'ECONNREFUSED':
      return `dial tcp ${target.host}:${target.port}: connect: connection refused`;
    case 'ECONNRESET':
      return 'EOF';
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
      return 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return `tls: failed to verify certificate: x509: certificate is not valid for ${target.servername}`;
    default:
      return error.message;
  }
}
