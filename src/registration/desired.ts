// What a configuration's webhooks should be, whether the live ones already are that, and whether
// writing them would make the API server call (or fail closed on) a webhook it does not call yet,
// which is only done after a probe shows a replica answering.
import { type BinaryLike, createHash } from 'node:crypto';
import type { LiveConfiguration, WebhookJson } from '../ports/webhook-configuration-store.ts';
import { registeredAnnotation } from './template.ts';

export interface Desired {
  webhooks: WebhookJson[];
  /** Digest of webhooks, recorded in the registered annotation when written. */
  digest: string;
}

/** The template's webhooks (or the live ones without a template), with the CA bundle injected when one is managed here. */
export function desiredWebhooks(template: WebhookJson[] | undefined, live: LiveConfiguration, caBundlePem: string | undefined): Desired {
  const base = template ?? live.webhooks;
  const webhooks = base.map((webhook) => {
    if (caBundlePem === undefined) return structuredClone(webhook);
    const clientConfig = { ...(webhook.clientConfig as Record<string, unknown>), caBundle: Buffer.from(caBundlePem).toString('base64') };
    return { ...structuredClone(webhook), clientConfig };
  });
  return { webhooks, digest: digest(JSON.stringify(webhooks)) };
}

/** True when the live configuration already holds exactly what desired asks for. */
export function upToDate(desired: Desired, live: LiveConfiguration): boolean {
  if (live.webhooks.length !== desired.webhooks.length) return false;
  // The digest tells a template change apart from server defaults; the comparison catches hand edits.
  return live.annotations[registeredAnnotation] === desired.digest && desired.webhooks.every((w, i) => contains(live.webhooks[i], w));
}

/** Writing desired would start calls to a webhook, or turn one from Ignore to failing closed. */
export function addsCallsOrFailsClosed(desired: Desired, live: LiveConfiguration): boolean {
  return desired.webhooks.some((webhook) => {
    const current = live.webhooks.find((w) => w.name === webhook.name);
    if (current === undefined) return true;
    return failurePolicy(webhook) === 'Fail' && failurePolicy(current) !== 'Fail';
  });
}

// An unset failurePolicy is Fail (admissionregistration/v1 defaulting).
const failurePolicy = (webhook: WebhookJson) => (webhook.failurePolicy as string | undefined) ?? 'Fail';

// Every field the wanted value sets is set to the same value in actual (server defaults may add more);
// lists must have the same length.
function contains(actual: unknown, wanted: unknown): boolean {
  if (Array.isArray(wanted))
    return Array.isArray(actual) && actual.length === wanted.length && wanted.every((w, i) => contains(actual[i], w));
  if (typeof wanted === 'object' && wanted !== null) {
    if (typeof actual !== 'object' || actual === null || Array.isArray(actual)) return false;
    return Object.entries(wanted).every(([key, value]) => contains((actual as Record<string, unknown>)[key], value));
  }
  return actual === wanted;
}

function digest(data: BinaryLike): string {
  return createHash('sha256').update(data).digest('hex').slice(0, 32);
}
