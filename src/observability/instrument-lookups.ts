// Wraps the Lookups port from outside, so every backend's reads are counted the same way and the
// plugins never know. A retry is recognised as a live GET of an object whose previous live GET
// answered NotFound moments ago: that is the ServiceAccount plugin waiting for `default`.
import type { KubeObject } from '../api/types.ts';
import type { Lookups, ResourceLookup } from '../ports/lookups.ts';
import type { LookupRecorder, LookupResource } from '../ports/recorders.ts';

export interface InstrumentLookupsOptions {
  /** Milliseconds, monotonic (default performance.now). */
  now?: () => number;
  /** A live GET this soon after a NotFound for the same object counts as a retry (default 2 s). */
  retryWindowMs?: number;
  /** NotFound answers remembered per resource, oldest forgotten first (default 1024). */
  rememberedNotFound?: number;
}

export function instrumentLookups(lookups: Lookups, recorder: LookupRecorder, options: InstrumentLookupsOptions = {}): Lookups {
  return {
    serviceAccounts: instrumentLookup(lookups.serviceAccounts, 'serviceaccounts', recorder, options),
    secrets: instrumentLookup(lookups.secrets, 'secrets', recorder, options),
    runtimeClasses: instrumentLookup(lookups.runtimeClasses, 'runtimeclasses', recorder, options),
    namespaces: instrumentLookup(lookups.namespaces, 'namespaces', recorder, options),
    nodes: instrumentLookup(lookups.nodes, 'nodes', recorder, options),
  };
}

function instrumentLookup<T extends KubeObject>(
  inner: ResourceLookup<T>,
  resource: LookupResource,
  recorder: LookupRecorder,
  options: InstrumentLookupsOptions,
): ResourceLookup<T> {
  const now = options.now ?? (() => performance.now());
  const retryWindowMs = options.retryWindowMs ?? 2000;
  const limit = options.rememberedNotFound ?? 1024;
  // Keys live only in memory, never in a label.
  const lastNotFound = new Map<string, number>();

  const rememberNotFound = (key: string, at: number) => {
    lastNotFound.delete(key);
    lastNotFound.set(key, at);
    if (lastNotFound.size > limit) lastNotFound.delete(lastNotFound.keys().next().value as string);
  };

  return {
    // Waiting for the cache is not a read: passed on as it is, uncounted.
    ...(inner.synced === undefined ? {} : { synced: inner.synced.bind(inner) }),
    cached(namespace, name) {
      const found = inner.cached(namespace, name);
      recorder.cacheRead({ resource, found: found !== undefined });
      return found;
    },
    async live(namespace, name, signal) {
      const key = `${namespace}/${name}`;
      const started = now();
      const previous = lastNotFound.get(key);
      if (previous !== undefined && started - previous <= retryWindowMs) recorder.retried({ resource });
      try {
        const found = await inner.live(namespace, name, signal);
        const finished = now();
        recorder.liveRead({ resource, result: found === undefined ? 'not-found' : 'found', durationSeconds: (finished - started) / 1000 });
        if (found === undefined) rememberNotFound(key, finished);
        else lastNotFound.delete(key);
        return found;
      } catch (error) {
        recorder.liveRead({ resource, result: 'error', durationSeconds: (now() - started) / 1000 });
        throw error;
      }
    },
  };
}
