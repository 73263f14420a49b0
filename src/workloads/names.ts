// Names and uids for objects that only a cluster would name. Offline there is no API server to
// assign a uid and no Go runtime to hash a template the way the deployment controller does, so both
// are derived from the object itself: stable from run to run, never equal to a cluster's.
import { createHash } from 'node:crypto';
import type { KubeObject } from '../api/types.ts';

/** A UUID-shaped uid derived from the object's kind, namespace and name. */
export function stableUid(object: KubeObject): string {
  const key = `${object.apiVersion}/${object.kind}/${object.metadata?.namespace ?? ''}/${object.metadata?.name ?? ''}`;
  const hex = createHash('sha256').update(key).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

// apimachinery's rand.SafeEncodeString alphabet: no vowels, no look-alikes.
const alphanums = 'bcdfghjklmnpqrstvwxz2456789';

/**
 * A pod-template-hash in the deployment controller's form (FNV-32a of the template, its decimal
 * digits mapped onto the safe alphabet). Upstream hashes Go's dump of the template, which only Go
 * can reproduce, so the value differs from a cluster's; its shape and stability do not. As Go's
 * dump follows the struct's field order, not the input's, keys are hashed in sorted order: the
 * template read from the API server and the same one read back by kubectl hash alike.
 */
export function podTemplateHash(template: unknown): string {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(JSON.stringify(template ?? {}, sortedKeys), 'utf8')) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  const digits = String(hash >>> 0);
  let encoded = '';
  for (let i = 0; i < digits.length; i++) encoded += alphanums[digits.charCodeAt(i) % alphanums.length];
  return encoded;
}

function sortedKeys(_key: string, value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const record = value as Record<string, unknown>;
  return Object.fromEntries(
    Object.keys(record)
      .sort()
      .map((k) => [k, record[k]]),
  );
}

/** getPodsPrefix: "<name>-" when that is a valid pod name prefix, else the name alone. */
export function podsPrefix(controllerName: string): string {
  const prefix = `${controllerName}-`;
  return isValidGenerateNamePrefix(prefix) ? prefix : controllerName;
}

// ValidatePodName(prefix, true): apimachinery masks a trailing dash (the last two characters become
// "a") and then asks for a DNS subdomain of at most 253 characters.
function isValidGenerateNamePrefix(prefix: string): boolean {
  const masked = prefix.length > 1 && prefix.endsWith('-') ? `${prefix.slice(0, -2)}a` : prefix;
  return masked.length <= 253 && /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/.test(masked);
}
