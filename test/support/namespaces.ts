// An in-memory Namespace lookup for plugin tests: an informer cache and an API server as two maps
// (so a namespace can be in one and not the other), every read recorded, the live read able to fail.
import type { Namespace, ResourceLookup } from '../../src/ports/lookups.ts';

export interface RecordingNamespaces extends ResourceLookup<Namespace> {
  readonly calls: { cached: string[]; live: string[] };
}

export function namespace(name: string, annotations?: Record<string, string>): Namespace {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: annotations === undefined ? { name } : { name, annotations } };
}

export function recordingNamespaces(cache: readonly Namespace[], server: readonly Namespace[] = cache, liveError?: unknown): RecordingNamespaces {
  const byName = (list: readonly Namespace[]) => new Map(list.map((ns) => [ns.metadata!.name!, ns]));
  const cached = byName(cache);
  const live = byName(server);
  const calls = { cached: [] as string[], live: [] as string[] };
  return {
    calls,
    cached(namespace, name) {
      calls.cached.push(`${namespace}/${name}`);
      const found = cached.get(name);
      return found === undefined ? undefined : structuredClone(found);
    },
    async live(namespace, name) {
      calls.live.push(`${namespace}/${name}`);
      if (liveError !== undefined) throw liveError;
      const found = live.get(name);
      return found === undefined ? undefined : structuredClone(found);
    },
  };
}
