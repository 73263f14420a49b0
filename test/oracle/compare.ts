// Compares the two servers' answers to one request. Admitted: the returned objects, after removing
// only what a server generates on its own (uid, timestamps, resourceVersion, managedFields, a name
// generated from generateName). Denied: the HTTP code, reason and message, after removing the prefix
// kube-apiserver puts before a webhook's denial. Warnings and audit annotations are ours alone.
// A Service's cluster IPs and node ports are allocated at random by each server, so they are
// compared as allocated or not; the ServiceAccount plugin names a pod's token volume with five
// random characters, so that name is compared as generated; a bound pod's conditions and a volume's
// phase carry the time each server set them.
import type { Answer } from './request.ts';

/** What is compared of one answer. */
export type Outcome =
  | { admitted: true; code: number; object: unknown }
  | { admitted: false; code: number; reason: string; message: string };

const webhookDenialPrefix = /^admission webhook "[^"]*" denied the request: /;

/** `generateName`: the request's, whose generated names each server picks for itself (messages name them too). */
export function outcomeOf(answer: Answer, generateName?: string): Outcome {
  const body = answer.body;
  if (answer.code >= 200 && answer.code < 300) return { admitted: true, code: answer.code, object: normaliseObject(body) };
  let message = (typeof body.message === 'string' ? body.message : JSON.stringify(body)).replace(webhookDenialPrefix, '');
  if (generateName !== undefined)
    message = message.replaceAll(new RegExp(`${escapeRegExp(generateName)}[a-z0-9]{5}\\b`, 'g'), `${generateName}<generated>`);
  return { admitted: false, code: answer.code, reason: typeof body.reason === 'string' ? body.reason : '', message };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function normaliseObject(object: Record<string, unknown>): unknown {
  const copy = structuredClone(object) as { metadata?: Record<string, unknown> };
  const metadata = copy.metadata;
  if (metadata !== undefined) {
    for (const generated of ['uid', 'creationTimestamp', 'resourceVersion', 'managedFields']) delete metadata[generated];
    if (typeof metadata.generateName === 'string' && typeof metadata.name === 'string')
      metadata.name = `${metadata.generateName}<generated>`;
  }
  if ((copy as { kind?: string }).kind === 'Service') normaliseAllocations((copy as { spec?: ServiceSpec }).spec);
  // A volume's or claim's phase was set at the moment each server stored it.
  const status = (copy as { status?: { lastPhaseTransitionTime?: string } }).status;
  if (typeof status?.lastPhaseTransitionTime === 'string') status.lastPhaseTransitionTime = '<time>';
  if ((copy as { kind?: string }).kind === 'Pod') return normaliseGeneratedPodFields(copy);
  return copy;
}

const tokenVolumeName = /^kube-api-access-[a-z0-9]{5}$/;

/** The token volume and its mounts under one name (names.SimpleNameGenerator's suffix is random on each server), condition times as set or not. */
function normaliseGeneratedPodFields(pod: object): unknown {
  return JSON.parse(JSON.stringify(pod), (key, value: unknown) =>
    key === 'name' && typeof value === 'string' && tokenVolumeName.test(value)
      ? 'kube-api-access-<generated>'
      : key === 'lastTransitionTime' || key === 'lastProbeTime'
        ? value === null
          ? null
          : '<time>'
        : value,
  );
}

interface ServiceSpec {
  clusterIP?: string;
  clusterIPs?: string[];
  ports?: { nodePort?: number }[];
  healthCheckNodePort?: number;
}

function normaliseAllocations(spec: ServiceSpec | undefined): void {
  if (spec === undefined) return;
  const allocated = (ip: string) => (ip === 'None' || ip === '' ? ip : '<allocated>');
  if (spec.clusterIP !== undefined) spec.clusterIP = allocated(spec.clusterIP);
  if (spec.clusterIPs !== undefined) spec.clusterIPs = spec.clusterIPs.map(allocated);
  for (const port of spec.ports ?? []) if (port.nodePort !== undefined) port.nodePort = 0;
  if (spec.healthCheckNodePort !== undefined) spec.healthCheckNodePort = 0;
}

export interface Difference {
  /** Where the two differ: `spec.tolerations[2]`, or `(answer)` for admitted against denied. */
  path: string;
  inTree: unknown;
  webhook: unknown;
}

/** The minimal set of paths at which the outcomes differ (an empty list: they agree). */
export function compareOutcomes(inTree: Outcome, webhook: Outcome): Difference[] {
  const out: Difference[] = [];
  diff(inTree, webhook, '', out);
  return out;
}

function diff(a: unknown, b: unknown, path: string, out: Difference[]): void {
  if (Object.is(a, b)) return;
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) {
      out.push({ path: path || '(answer)', inTree: a, webhook: b });
      return;
    }
    a.forEach((item, index) => {
      diff(item, b[index], `${path}[${index}]`, out);
    });
    return;
  }
  if (isRecord(a) && isRecord(b)) {
    for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
      diff(a[key], b[key], path === '' ? key : `${path}.${key}`, out);
    }
    return;
  }
  out.push({ path: path || '(answer)', inTree: a, webhook: b });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
