// In-memory Lookups for plugin tests (upstream's tests use a fake informer store and clientset the
// same way): an informer cache and an API server as two lists, so an object can be in one and not
// the other, every read recorded; the live read can fail, or follow a script attempt by attempt.
import type { KubeObject } from '../../src/api/types.ts';
import type { Lookups, Namespace, ResourceLookup } from '../../src/ports/lookups.ts';

/** What a live GET answers on one attempt: an object, NotFound, or a failure. */
export type LiveAnswer<T> = T | 'not-found' | Error;

export interface RecordingLookup<T extends KubeObject> extends ResourceLookup<T> {
  /** "namespace/name" per read, in order ("" namespace for cluster-scoped objects). */
  readonly calls: { cached: string[]; live: string[] };
}

export interface LookupOptions<T extends KubeObject> {
  /** What the API server holds (default: the cache's objects). */
  server?: readonly T[];
  /** Every live read fails with this. */
  liveError?: unknown;
  /** The live answers attempt by attempt (the last repeats); the server's objects when empty. */
  liveScript?: ReadonlyArray<LiveAnswer<T>>;
  /** The cache's readiness as the cluster backend reports it; absent: complete from the start, as local state. */
  synced?: (waitMs: number, signal: AbortSignal) => Promise<boolean>;
}

export function recordingLookup<T extends KubeObject>(cache: readonly T[], options: LookupOptions<T> = {}): RecordingLookup<T> {
  const cached = byKey(cache);
  const server = byKey(options.server ?? cache);
  const script = options.liveScript ?? [];
  const calls = { cached: [] as string[], live: [] as string[] };
  return {
    calls,
    ...(options.synced === undefined ? {} : { synced: options.synced }),
    cached(namespace, name) {
      calls.cached.push(`${namespace}/${name}`);
      return copy(cached.get(`${namespace}/${name}`));
    },
    async live(namespace, name) {
      const attempt = calls.live.length;
      calls.live.push(`${namespace}/${name}`);
      if (options.liveError !== undefined) throw options.liveError;
      if (script.length === 0) return copy(server.get(`${namespace}/${name}`));
      const answer = script[Math.min(attempt, script.length - 1)]!;
      if (answer === 'not-found') return undefined;
      if (answer instanceof Error) throw answer;
      return structuredClone(answer);
    },
  };
}

/** A Lookups port from the lookups given; reading any other throws, so a test sees what a plugin reads. */
export function lookupsOf(given: Partial<Lookups>): Lookups {
  const refuse = (what: string): ResourceLookup<never> => {
    const fail = () => {
      throw new Error(`this test gives no ${what} lookup`);
    };
    return { cached: fail, live: fail };
  };
  return {
    serviceAccounts: given.serviceAccounts ?? refuse('service account'),
    secrets: given.secrets ?? refuse('secret'),
    runtimeClasses: given.runtimeClasses ?? refuse('runtime class'),
    namespaces: given.namespaces ?? refuse('namespace'),
    nodes: given.nodes ?? refuse('node'),
  };
}

export function namespace(name: string, annotations?: Record<string, string>): Namespace {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: annotations === undefined ? { name } : { name, annotations } };
}

function byKey<T extends KubeObject>(objects: readonly T[]): Map<string, T> {
  return new Map(objects.map((object) => [`${object.metadata?.namespace ?? ''}/${object.metadata?.name ?? ''}`, object]));
}

function copy<T>(value: T | undefined): T | undefined {
  return value === undefined ? undefined : structuredClone(value);
}
