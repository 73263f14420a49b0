// The two webhook admission phases of kube-apiserver, in the order create.go / patch.go run them:
// every matching mutating webhook in turn (configurations sorted by name, webhooks in their listed
// order), each seeing the previous one's JSONPatch applied, with one reinvocation round for
// IfNeeded webhooks when a later webhook changed the object; then every matching validating webhook
// (called concurrently, as upstream does) against the final object. Denials become the Status
// kube-apiserver would send; warnings are collected for the Warning response headers.
import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import jsonPatch, { type Operation } from 'fast-json-patch';
import type { AdmissionRequest, AdmissionResponse, AdmissionReview } from '../../src/admission/review.ts';
import type { KubeObject } from '../../src/api/types.ts';
import type { AdmissionAttributes } from './admission-attributes.ts';
import { kubeStatus, type KubeStatus } from './kube-status.ts';
import { callWebhook, CallingWebhookError, type ServiceResolver } from './webhook-call.ts';
import { withDefaults, type Phase, type Webhook, type WebhookConfiguration } from './webhook-configurations.ts';
import { NamespaceNotFoundError, shouldCallHook, type Invocation, type MatchEnvironment } from './webhook-matching.ts';

export interface DispatcherEnvironment extends MatchEnvironment {
  /** The configurations currently stored for a phase (kube-apiserver reads them from its informer). */
  configurations(phase: Phase): WebhookConfiguration[];
  resolveService: ServiceResolver;
  /** Sees every webhook call: the review sent and the response (or the error). For tests. */
  onCall?: (call: WebhookCall) => void;
}

export interface WebhookCall {
  webhook: string;
  review: AdmissionReview;
  response?: AdmissionResponse;
  error?: string;
}

export type AdmissionOutcome =
  | { allowed: true; object: KubeObject | undefined; warnings: string[] }
  | { allowed: false; status: KubeStatus; warnings: string[] };

/** A webhook with the identity upstream keys reinvocation by: configuration/webhook/index. */
interface OrderedHook {
  key: string;
  webhook: Webhook;
}

function orderedHooks(environment: DispatcherEnvironment, phase: Phase): OrderedHook[] {
  return [...environment.configurations(phase)]
    .sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0))
    .flatMap((configuration) =>
      (configuration.webhooks ?? []).map((webhook, index) => ({ key: `${configuration.metadata.name}/${webhook.name}/${index}`, webhook: withDefaults(webhook, phase) })),
    );
}

export async function admit(attributes: AdmissionAttributes, environment: DispatcherEnvironment): Promise<AdmissionOutcome> {
  const warnings: string[] = [];
  const current: AdmissionAttributes = { ...attributes, object: structuredClone(attributes.object) };
  const mutation = await runMutatingWebhooks(current, environment, warnings);
  if (mutation !== undefined) return { allowed: false, status: mutation, warnings };
  const validation = await runValidatingWebhooks(current, environment, warnings);
  if (validation !== undefined) return { allowed: false, status: validation, warnings };
  return { allowed: true, object: current.object, warnings };
}

async function runMutatingWebhooks(attributes: AdmissionAttributes, environment: DispatcherEnvironment, warnings: string[]): Promise<KubeStatus | undefined> {
  const hooks = orderedHooks(environment, 'mutating');
  let previouslyInvoked = new Set<string>();
  const reinvoke = new Set<string>();
  let shouldReinvoke = false;
  for (const round of [0, 1]) {
    if (round === 1 && !shouldReinvoke) break;
    for (const { key, webhook } of hooks) {
      const matched = match(webhook, attributes, environment);
      if (matched instanceof Error) return matched.status;
      if (matched === undefined) continue;
      // A reinvocation round only calls webhooks that ran before a later change; never new ones.
      if (round === 1 && !reinvoke.has(key)) continue;
      let changed = false;
      let failure: unknown;
      try {
        changed = await callMutating(matched, attributes, environment, warnings);
      } catch (error) {
        failure = error;
      }
      if (changed) {
        for (const earlier of previouslyInvoked) reinvoke.add(earlier);
        previouslyInvoked = new Set();
        shouldReinvoke = true;
      }
      if (webhook.reinvocationPolicy === 'IfNeeded') previouslyInvoked.add(key);
      if (failure === undefined) continue;
      if (failure instanceof CallingWebhookError && webhook.failurePolicy === 'Ignore') continue;
      return statusFor(failure);
    }
  }
  return undefined;
}

async function runValidatingWebhooks(attributes: AdmissionAttributes, environment: DispatcherEnvironment, warnings: string[]): Promise<KubeStatus | undefined> {
  const invocations: Invocation[] = [];
  for (const { webhook } of orderedHooks(environment, 'validating')) {
    const matched = match(webhook, attributes, environment);
    if (matched instanceof Error) return matched.status;
    if (matched !== undefined) invocations.push(matched);
  }
  const results = await Promise.all(
    invocations.map(async (invocation) => {
      try {
        const response = await send(invocation, attributes, environment);
        warnings.push(...(response.warnings ?? []));
        return response.allowed ? undefined : rejection(invocation.webhook.name, response);
      } catch (error) {
        if (error instanceof CallingWebhookError && invocation.webhook.failurePolicy === 'Ignore') return undefined;
        return statusFor(error);
      }
    }),
  );
  return results.find((r) => r !== undefined);
}

class MatchError extends Error {
  readonly status: KubeStatus;
  constructor(status: KubeStatus) {
    super(status.message);
    this.status = status;
  }
}

function match(webhook: Webhook, attributes: AdmissionAttributes, environment: MatchEnvironment): Invocation | undefined | MatchError {
  try {
    return shouldCallHook(webhook, attributes, environment);
  } catch (error) {
    if (error instanceof NamespaceNotFoundError) {
      return new MatchError(kubeStatus(404, 'NotFound', error.message, { name: error.namespace, kind: 'namespaces' }));
    }
    return new MatchError(kubeStatus(500, 'InternalError', `Internal error occurred: ${(error as Error).message}`));
  }
}

/** Calls one mutating webhook and applies its patch to attributes.object; true when that changed it. */
async function callMutating(invocation: Invocation, attributes: AdmissionAttributes, environment: DispatcherEnvironment, warnings: string[]): Promise<boolean> {
  const response = await send(invocation, attributes, environment);
  warnings.push(...(response.warnings ?? []));
  if (!response.allowed) throw new RejectionError(rejection(invocation.webhook.name, response));
  if (response.patch === undefined) return false;
  let operations: Operation[];
  try {
    operations = JSON.parse(Buffer.from(response.patch, 'base64').toString('utf8')) as Operation[];
  } catch (error) {
    throw new CallingWebhookError(invocation.webhook.name, `received undecodable patch in webhook response: ${(error as Error).message}`);
  }
  if (operations.length === 0) return false;
  if (attributes.object === undefined) {
    throw new InternalError(`admission webhook "${invocation.webhook.name}" attempted to modify the object, which is not supported for this operation`);
  }
  let patched: KubeObject;
  try {
    patched = jsonPatch.applyPatch(structuredClone(attributes.object), operations, true, false).newDocument;
  } catch (error) {
    throw new InternalError((error as Error).message);
  }
  const changed = !isDeepStrictEqual(patched, attributes.object);
  attributes.object = patched;
  return changed;
}

async function send(invocation: Invocation, attributes: AdmissionAttributes, environment: DispatcherEnvironment): Promise<AdmissionResponse> {
  const { webhook } = invocation;
  if (attributes.dryRun) {
    if (webhook.sideEffects === undefined) throw new CallingWebhookError(webhook.name, 'Webhook SideEffects is nil');
    if (webhook.sideEffects !== 'None' && webhook.sideEffects !== 'NoneOnDryRun') {
      throw new RejectionError(kubeStatus(400, 'BadRequest', `admission webhook "${webhook.name}" does not support dry run`));
    }
  }
  const review = reviewFor(invocation, attributes);
  try {
    const response = await callWebhook(webhook, review, environment.resolveService);
    environment.onCall?.({ webhook: webhook.name, review, response });
    return response;
  } catch (error) {
    environment.onCall?.({ webhook: webhook.name, review, error: (error as Error).message });
    throw error;
  }
}

/** webhookrequest.CreateAdmissionObjects: a fresh uid per call, the request's own kind/resource as requestKind/requestResource. */
function reviewFor(invocation: Invocation, attributes: AdmissionAttributes): AdmissionReview {
  const asInvoked = (object: KubeObject | undefined) => {
    if (object === undefined) return null;
    const apiVersion = invocation.kind.group === '' ? invocation.kind.version : `${invocation.kind.group}/${invocation.kind.version}`;
    return { ...object, apiVersion, kind: invocation.kind.kind };
  };
  const request: AdmissionRequest = {
    uid: randomUUID(),
    kind: invocation.kind,
    resource: invocation.resource,
    requestKind: attributes.kind,
    requestResource: attributes.resource,
    name: attributes.name,
    namespace: attributes.namespace,
    operation: attributes.operation,
    userInfo: attributes.userInfo,
    object: asInvoked(attributes.object),
    oldObject: asInvoked(attributes.oldObject),
    dryRun: attributes.dryRun,
    options: attributes.options,
  };
  if (attributes.subresource !== '') {
    request.subResource = attributes.subresource;
    request.requestSubResource = attributes.subresource;
  }
  if (attributes.namespace === '') delete request.namespace;
  return { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request };
}

/** webhookerrors.ToStatusErr (kube-apiserver 1.34): the webhook's Status, at least 400, prefixed with who denied it. */
function rejection(webhookName: string, response: AdmissionResponse): KubeStatus {
  const result = response.status;
  const deniedBy = `admission webhook "${webhookName}" denied the request`;
  const message = result?.message ? `${deniedBy}: ${result.message}` : result?.reason ? `${deniedBy}: ${result.reason}` : `${deniedBy} without explanation`;
  const code = result?.code !== undefined && result.code >= 400 ? result.code : 400;
  return kubeStatus(code, result?.reason ?? '', message, result?.details as KubeStatus['details']);
}

class RejectionError extends Error {
  readonly status: KubeStatus;
  constructor(status: KubeStatus) {
    super(status.message);
    this.status = status;
  }
}

class InternalError extends Error {}

function statusFor(error: unknown): KubeStatus {
  if (error instanceof RejectionError) return error.status;
  const message = error instanceof Error ? error.message : String(error);
  return kubeStatus(500, 'InternalError', `Internal error occurred: ${message}`, { causes: [{ message }] });
}
