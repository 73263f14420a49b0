// A namespace's default tolerations and whitelist (upstream getNamespace and extractNSTolerations):
// the namespace from the informer cache, or one live GET when the cache does not have it yet (a
// NotFound is returned as it is, any other failure as an internal error); then its annotation:
// absent means "none set" (the cluster-wide configuration applies), "" means an empty list.
import { abortedError } from '../../admission/errors.ts';
import type { Toleration } from '../../api/core.ts';
import { internalError, newNotFound, nonStatusError } from '../../api/status-error.ts';
import type { Namespace, ResourceLookup } from '../../ports/lookups.ts';
import { decodeTolerations, TolerationJsonError } from './toleration-json.ts';

export const defaultTolerationsAnnotation = 'scheduler.alpha.kubernetes.io/defaultTolerations';
export const tolerationsWhitelistAnnotation = 'scheduler.alpha.kubernetes.io/tolerationsWhitelist';

export async function readNamespace(namespaces: ResourceLookup<Namespace>, name: string, signal: AbortSignal): Promise<Namespace> {
  const cached = namespaces.cached('', name);
  if (cached !== undefined) return cached;
  let live: Namespace | undefined;
  try {
    live = await namespaces.live('', name, signal);
  } catch (error) {
    if (signal.aborted) throw abortedError(signal.reason, ` while reading namespace ${name}`);
    throw internalError(error instanceof Error ? error.message : String(error), error);
  }
  if (live === undefined) throw newNotFound({ group: '', resource: 'namespaces' }, name);
  return live;
}

/** The namespace, read at most once per plugin call, and only if asked for. */
export function namespaceOnce(namespaces: ResourceLookup<Namespace>, name: string, signal: AbortSignal): () => Promise<Namespace> {
  let read: Promise<Namespace> | undefined;
  return () => (read ??= readNamespace(namespaces, name, signal));
}

/** The annotation's tolerations; undefined when the annotation is not set. Malformed JSON fails the request (a 500, as upstream's plain error). */
export function annotatedTolerations(namespace: Namespace, annotation: string): Toleration[] | undefined {
  const value = namespace.metadata?.annotations?.[annotation];
  if (typeof value !== 'string') return undefined;
  if (value === '') return [];
  try {
    return decodeTolerations(value);
  } catch (error) {
    if (error instanceof TolerationJsonError) throw nonStatusError(error.message, error);
    throw error;
  }
}
