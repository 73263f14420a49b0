// What the lookup caches hold of each object: only the fields admission reads, as plain JSON.
// Objects arrive in two shapes (typed client-node models from LIST and GET, raw JSON from WATCH);
// both are projected here the moment they arrive. For Secrets that means name, namespace, uid,
// resourceVersion, annotations and type — `data` and `stringData` are never copied, and neither
// is kubectl's last-applied-configuration annotation, which carries the whole applied Secret.
import type { ObjectMeta } from '../../../api/types.ts';
import type { Namespace, Node, RuntimeClass, SecretReference, ServiceAccount } from '../../../ports/lookups.ts';

const lastAppliedAnnotation = 'kubectl.kubernetes.io/last-applied-configuration';

type Loose = Record<string, unknown> | undefined;

export function projectServiceAccount(object: unknown): ServiceAccount {
  const source = object as Loose;
  return withoutUndefined({
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: projectMetadata(source?.metadata),
    automountServiceAccountToken: source?.automountServiceAccountToken,
    secrets: plain(source?.secrets),
    imagePullSecrets: plain(source?.imagePullSecrets),
  }) as ServiceAccount;
}

export function projectSecret(object: unknown): SecretReference {
  const source = object as Loose;
  return withoutUndefined({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: projectMetadata(source?.metadata),
    type: typeof source?.type === 'string' ? source.type : undefined,
  }) as SecretReference;
}

export function projectRuntimeClass(object: unknown): RuntimeClass {
  const source = object as Loose;
  return withoutUndefined({
    apiVersion: 'node.k8s.io/v1',
    kind: 'RuntimeClass',
    metadata: projectMetadata(source?.metadata),
    handler: source?.handler,
    overhead: plain(source?.overhead),
    scheduling: plain(source?.scheduling),
  }) as RuntimeClass;
}

/**
 * Namespaces: name, uid, resourceVersion, annotations (node selector, tolerations) and labels (the
 * per-plugin exemptions' namespace selectors) only.
 */
export function projectNamespace(object: unknown): Namespace {
  const source = object as Loose;
  const labels = stringsOf((source?.metadata as Loose)?.labels);
  const metadata = withoutUndefined({ ...projectMetadata(source?.metadata), labels }) as ObjectMeta;
  return withoutUndefined({ apiVersion: 'v1', kind: 'Namespace', metadata }) as Namespace;
}

/**
 * Nodes: name, resourceVersion (the informer skips a watched object it already holds at that
 * version) and labels only. A Node's status (conditions, images, addresses) is most of its size and
 * changes with every heartbeat; none of it is read.
 */
export function projectNode(object: unknown): Node {
  const metadata = (object as Loose)?.metadata as Loose;
  const labels = stringsOf(metadata?.labels);
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: withoutUndefined({ name: metadata?.name, resourceVersion: metadata?.resourceVersion, labels }) as ObjectMeta,
  };
}

/** A labels map's string members; undefined when there is none. */
function stringsOf(value: unknown): Record<string, string> | undefined {
  const given = value as Record<string, unknown> | undefined;
  if (given === undefined || given === null) return undefined;
  const strings: Record<string, string> = {};
  for (const [name, text] of Object.entries(given)) if (typeof text === 'string') strings[name] = text;
  return strings;
}

function projectMetadata(value: unknown): ObjectMeta {
  const metadata = value as Loose;
  let annotations: Record<string, string> | undefined;
  const given = metadata?.annotations as Record<string, unknown> | undefined;
  if (given !== undefined && given !== null) {
    annotations = {};
    for (const [name, text] of Object.entries(given)) {
      if (name !== lastAppliedAnnotation && typeof text === 'string') annotations[name] = text;
    }
  }
  return withoutUndefined({
    name: metadata?.name,
    namespace: metadata?.namespace,
    uid: metadata?.uid,
    resourceVersion: metadata?.resourceVersion,
    annotations,
  }) as ObjectMeta;
}

/** A deep copy as JSON would carry it: no undefined members (typed models have many), no classes. */
// biome-ignore lint/suspicious/noExplicitAny: a copy of any JSON shape, read by callers as the typed model it came from
function plain(value: unknown): any {
  if (value === undefined || value === null) return undefined;
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map((item) => plain(item) ?? null);
  if (typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [name, member] of Object.entries(value)) {
      const copied = plain(member);
      if (copied !== undefined) out[name] = copied;
    }
    return out;
  }
  return value;
}

function withoutUndefined(object: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined));
}
