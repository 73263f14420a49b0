// The webhooks the chart wants registered, carried in an annotation on each (otherwise empty)
// configuration it installs: the registrar copies them in once a replica answers, so Helm never
// owns the webhooks list and the API server never calls a webhook nobody serves.
import type { WebhookJson } from '../ports/webhook-configuration-store.ts';

/** The chart-rendered webhooks, as a JSON array. */
export const templateAnnotation = 'admission-chain.io/webhooks';
/** A digest of what the registrar last wrote, so an unchanged template costs no write. */
export const registeredAnnotation = 'admission-chain.io/registered-webhooks';

/** The webhooks of the template annotation, or undefined without one; throws with a reason when it is malformed. */
export function parseTemplate(annotations: Record<string, string>): WebhookJson[] | undefined {
  const raw = annotations[templateAnnotation];
  if (raw === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (error) {
    throw new Error(`annotation ${templateAnnotation} is not JSON: ${(error as Error).message}`);
  }
  if (!Array.isArray(parsed)) throw new Error(`annotation ${templateAnnotation} must be a JSON array of webhooks`);
  const names = new Set<string>();
  for (const [i, webhook] of parsed.entries()) {
    if (typeof webhook !== 'object' || webhook === null || Array.isArray(webhook))
      throw new Error(`annotation ${templateAnnotation}: item ${i} is not an object`);
    const { name, clientConfig } = webhook as Record<string, unknown>;
    if (typeof name !== 'string' || name === '') throw new Error(`annotation ${templateAnnotation}: item ${i} has no name`);
    if (names.has(name)) throw new Error(`annotation ${templateAnnotation}: webhook ${name} appears twice`);
    if (typeof clientConfig !== 'object' || clientConfig === null)
      throw new Error(`annotation ${templateAnnotation}: webhook ${name} has no clientConfig`);
    names.add(name);
  }
  return parsed as WebhookJson[];
}
