// One informer cache (list + watch) for one resource, built on client-node's ListWatch, kept alive
// where ListWatch alone would stop: ListWatch gives up for good after any error other than a
// timeout or 410 (it only emits 'error'), and it never notices a LIST or watch that hangs. So the
// cache runs in generations: each generation is a fresh ListWatch that LISTs and then WATCHes;
// an error ends it and, after an exponential backoff, a new generation relists; the watchdog
// (watchdog.ts) ends a generation that has gone quiet and relists the same way. The cache itself
// is ours, outside the generations, so it keeps answering while a new generation relists, and
// each LIST replaces it whole (objects deleted while no watch ran disappear).
import { ApiException, type KubeConfig, type KubernetesObject, ListWatch } from '@kubernetes/client-node';
import type { KubeObject } from '../../../api/types.ts';
import type { Clock, Random } from '../../../ports/clock.ts';
import type { Logger } from '../../../ports/logger.ts';
import type { InformerRestartReason } from '../../../ports/recorders.ts';
import { statusOf } from './kube.ts';
import { InformerWatch } from './watch.ts';

/** One LIST: the items, already projected, and the resourceVersion to watch from. */
export interface ListResult<T> {
  items: T[];
  resourceVersion: string;
}

export interface InformerObserver {
  listed?(): void;
  failed?(): void;
  restarted?(reason: InformerRestartReason): void;
  /** The cache changed: a LIST replaced it, or a watched event added, changed or removed an object. */
  changed?(): void;
}

export interface InformerOptions<T extends KubeObject> {
  /** The resource's plural name: "serviceaccounts". Used in logs, readiness and metrics. */
  resource: string;
  kubeConfig: KubeConfig;
  /** The collection path to watch, across all namespaces: "/api/v1/serviceaccounts". */
  path: string;
  list(signal: AbortSignal): Promise<ListResult<T>>;
  /** Keeps only what the cache may hold; applied to every watched object as it arrives. */
  project(object: unknown): T;
  clock: Clock;
  random: Random;
  logger: Logger;
  /** Delay before restarting after an error: doubles per consecutive failure, with jitter. */
  backoff: { initialMs: number; maxMs: number };
  observer?: InformerObserver;
}

interface Generation {
  stop: AbortController;
  listWatch: ListWatch<KubernetesObject>;
  watch: InformerWatch;
}

export class Informer<T extends KubeObject> {
  readonly resource: string;
  readonly #options: InformerOptions<T>;
  #objects = new Map<string, T>();
  #generation: Generation | undefined;
  #synced = false;
  /** A generation has listed and nothing has failed or stopped since: the cache follows the server. */
  #current = false;
  #resolveSynced!: () => void;
  #rejectSynced!: (error: Error) => void;
  readonly #syncedPromise: Promise<void>;
  readonly #closed = new AbortController();
  #restartPending = false;
  #failures = 0;
  #lastError: string | undefined;
  #lastActivity = 0;
  #lastListed = 0;
  readonly #stopping = new Set<Promise<void>>();

  constructor(options: InformerOptions<T>) {
    this.resource = options.resource;
    this.#options = options;
    this.#syncedPromise = new Promise<void>((resolve, reject) => {
      this.#resolveSynced = resolve;
      this.#rejectSynced = reject;
    });
    // Nobody may ever wait for sync (close before start); that is not an unhandled rejection.
    this.#syncedPromise.catch(() => {});
  }

  /** The cached object (a copy: callers may change what they get), or undefined. */
  get(namespace: string, name: string): T | undefined {
    const found = this.#objects.get(key(namespace, name));
    return found === undefined ? undefined : structuredClone(found);
  }

  get synced(): boolean {
    return this.#synced;
  }

  /**
   * True while the cache follows the server: the running generation has listed, and no error,
   * stall or resync has ended it since. False from an error until the next LIST completes.
   */
  get current(): boolean {
    return this.#current;
  }

  /** The cached objects themselves, not copies: for readers that never change them. */
  values(): IterableIterator<T> {
    return this.#objects.values();
  }

  get size(): number {
    return this.#objects.size;
  }

  /** Resolves at the first successful LIST; rejects if the informer closes first. */
  whenSynced(): Promise<void> {
    return this.#syncedPromise;
  }

  /** The last error, for readiness messages (API status text, never object content). */
  get lastError(): string | undefined {
    return this.#lastError;
  }

  /** When the informer last saw a LIST complete, a watch answer, an event or a bookmark. */
  get lastActivity(): number {
    return this.#lastActivity;
  }

  get lastListed(): number {
    return this.#lastListed;
  }

  start(): void {
    if (this.#closed.signal.aborted || this.#generation !== undefined) return;
    this.#startGeneration();
  }

  /**
   * Ends the running generation and relists at once (the watchdog's lever). Does nothing while an
   * error backoff is pending: that restart is already on its way.
   */
  restart(reason: Exclude<InformerRestartReason, 'error'>): void {
    if (this.#closed.signal.aborted || this.#restartPending) return;
    this.#options.logger.warn({ resource: this.resource, reason }, 'informer restarting');
    this.#options.observer?.restarted?.(reason);
    this.#stopGeneration();
    this.#startGeneration();
  }

  async close(): Promise<void> {
    if (!this.#closed.signal.aborted) {
      this.#closed.abort();
      this.#stopGeneration();
      if (!this.#synced) this.#rejectSynced(new Error(`${this.resource} informer closed before its cache synced`));
    }
    await Promise.all(this.#stopping);
  }

  #startGeneration(): void {
    const { kubeConfig, path, clock, project } = this.#options;
    const stop = new AbortController();
    const signal = stop.signal;
    const touch = () => {
      if (!signal.aborted) this.#lastActivity = clock.now();
    };
    const watch = new InformerWatch(kubeConfig, {
      stopped: signal,
      project,
      onActivity: () => {
        touch();
        if (!signal.aborted) this.#failures = 0;
      },
    });
    const listWatch = new ListWatch<KubernetesObject>(path, watch, () => this.#list(signal), false, undefined, undefined, {
      // ListWatch's own pause before re-watching: cut short when the generation stops (the
      // InformerWatch then refuses to start another watch).
      delayFn: (ms) => clock.sleep(ms, signal).catch(() => {}),
    });
    // After each LIST, ListWatch replays every listed item as 'add' (the very objects #list stored)
    // and every object it held but the LIST lacks as 'delete' (already gone from the new cache):
    // #list has reported that change once, so only watched events that change the cache count.
    const store = (object: KubernetesObject) => {
      if (signal.aborted) return;
      const key = keyOf(object);
      if (this.#objects.get(key) === (object as unknown as T)) return;
      this.#objects.set(key, object as unknown as T);
      this.#options.observer?.changed?.();
    };
    listWatch.on('add', store);
    listWatch.on('update', store);
    listWatch.on('delete', (object) => {
      if (signal.aborted) return;
      if (!this.#objects.delete(keyOf(object))) return;
      this.#options.observer?.changed?.();
    });
    listWatch.on('error', (error) => {
      if (!signal.aborted) this.#failed(error);
    });
    this.#generation = { stop, listWatch, watch };
    touch();
    void listWatch.start().catch((error: unknown) => {
      if (!signal.aborted) this.#failed(error);
    });
  }

  async #list(signal: AbortSignal): Promise<{ metadata: { resourceVersion: string }; items: KubernetesObject[] }> {
    const listed = await this.#options.list(signal);
    if (signal.aborted) throw signal.reason;
    const items = listed.items;
    this.#objects = new Map(items.map((item) => [keyOf(item), item]));
    this.#lastListed = this.#lastActivity = this.#options.clock.now();
    this.#lastError = undefined;
    this.#current = true;
    this.#options.observer?.listed?.();
    this.#options.observer?.changed?.();
    if (!this.#synced) {
      this.#synced = true;
      this.#resolveSynced();
    }
    return { metadata: { resourceVersion: listed.resourceVersion }, items: items as unknown as KubernetesObject[] };
  }

  #failed(error: unknown): void {
    this.#lastError = describe(error);
    this.#options.observer?.failed?.();
    this.#stopGeneration();
    const { initialMs, maxMs } = this.#options.backoff;
    const base = Math.min(maxMs, initialMs * 2 ** this.#failures);
    // Up to 20% jitter, so restarted replicas do not relist in lockstep.
    const delayMs = Math.round(base + (base * this.#options.random.intBelow(201)) / 1000);
    this.#failures += 1;
    this.#options.logger.warn(
      { resource: this.resource, error: this.#lastError, retryInMs: delayMs },
      'informer failed; restarting after backoff',
    );
    this.#restartPending = true;
    void this.#options.clock.sleep(delayMs, this.#closed.signal).then(
      () => {
        this.#restartPending = false;
        if (this.#closed.signal.aborted) return;
        this.#options.observer?.restarted?.('error');
        this.#startGeneration();
      },
      () => {
        this.#restartPending = false;
      },
    );
  }

  #stopGeneration(): void {
    const generation = this.#generation;
    this.#current = false;
    if (generation === undefined) return;
    this.#generation = undefined;
    generation.stop.abort(new Error(`${this.resource} informer generation stopped`));
    const stopping = generation.listWatch
      .stop()
      .catch(() => {})
      .then(() => generation.watch.close());
    this.#stopping.add(stopping);
    void stopping.then(() => this.#stopping.delete(stopping));
  }
}

function key(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

function keyOf(object: KubernetesObject | KubeObject): string {
  return key(object.metadata?.namespace ?? '', object.metadata?.name ?? '');
}

/** A short description of a failure: status code and message, or the error's own message. */
function describe(error: unknown): string {
  if (error instanceof ApiException) return `HTTP ${error.code}: ${statusOf(error)?.message ?? 'no details'}`;
  if (error instanceof Error) {
    const code = (error as { code?: unknown; statusCode?: unknown }).code ?? (error as { statusCode?: unknown }).statusCode;
    return typeof code === 'number' ? `HTTP ${code}: ${firstLine(error.message)}` : firstLine(error.message);
  }
  return String(error);
}

function firstLine(text: string): string {
  return text.split('\n', 1)[0] ?? '';
}
