// One informer cache (list + watch) for one resource, kept alive through whatever the API server or
// the network does. The cache runs in generations: each generation LISTs, then WATCHes from the
// list's resourceVersion (watch.ts), watching again from the last resourceVersion seen whenever a
// watch ends or goes quiet, and relisting when the server says that resourceVersion is too old
// (410 Gone). Any other error ends the generation and, after an exponential backoff, a new one
// relists; the watchdog (watchdog.ts) ends a generation that has gone quiet and relists the same
// way. The cache itself is ours, outside the generations, so it keeps answering while a new
// generation relists, and each LIST replaces it whole (objects deleted while no watch ran disappear).
import { ApiException, type KubeConfig } from '@kubernetes/client-node';
import type { KubeObject } from '../../../api/types.ts';
import type { Clock, Random } from '../../../ports/clock.ts';
import type { Logger } from '../../../ports/logger.ts';
import type { InformerRestartReason } from '../../../ports/recorders.ts';
import { raceWithSignal } from '../../../util/signals.ts';
import { statusOf } from './kube.ts';
import { type WatchEvent, WatchStatusError, watchOnce } from './watch.ts';

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
  /**
   * A watch that brings no answer, event or data for this long is given up and watched again from
   * where it stopped (default 30 s). kube-apiserver's watch cache sends a watch that asked for
   * bookmarks one about once a minute, so a watch on a quiet collection may be re-opened: one
   * request from the same resourceVersion, no relist.
   */
  watchTimeoutMs?: number;
  observer?: InformerObserver;
}

/**
 * Pause before watching again after a watch ended by itself: none the first time, then 1 s doubling
 * to 30 s while watches keep ending without an event; any event, or a watch given up for silence
 * (which already waited its timeout), starts over from none.
 */
const rewatchDelay = { initialMs: 1_000, maxMs: 30_000 };
const defaultWatchTimeoutMs = 30_000;

interface Generation {
  stop: AbortController;
  /** Settles when the generation's list-watch loop has ended and its connections are closed. */
  ended: Promise<void>;
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

  /** Stops the informer: no LIST or watch starts after this, and it resolves once every connection has closed. */
  async close(): Promise<void> {
    if (!this.#closed.signal.aborted) {
      this.#closed.abort();
      this.#stopGeneration();
      if (!this.#synced) this.#rejectSynced(new Error(`${this.resource} informer closed before its cache synced`));
    }
    await Promise.all(this.#stopping);
  }

  #startGeneration(): void {
    const stop = new AbortController();
    const signal = stop.signal;
    this.#touch(signal);
    const ended = this.#run(signal).catch((error: unknown) => {
      if (!signal.aborted) this.#failed(error);
    });
    this.#generation = { stop, ended };
  }

  /** One generation: LIST, then WATCH again and again; returns only by throwing (an error or the stop). */
  async #run(signal: AbortSignal): Promise<never> {
    const { clock } = this.#options;
    const timeoutMs = this.#options.watchTimeoutMs ?? defaultWatchTimeoutMs;
    // Empty until a LIST gives one, and again once the server says it is too old: then relist.
    let resourceVersion = '';
    let delayMs = 0;
    let watched = false;
    for (;;) {
      if (resourceVersion === '') resourceVersion = await this.#list(signal);
      if (delayMs > 0 && watched) await clock.sleep(delayMs, signal);
      if (watched) delayMs = delayMs > 0 ? Math.min(rewatchDelay.maxMs, delayMs * 2) : rewatchDelay.initialMs;
      watched = true;
      signal.throwIfAborted();
      let expired = false;
      try {
        await watchOnce({
          kubeConfig: this.#options.kubeConfig,
          path: this.#options.path,
          resourceVersion,
          signal,
          timeoutMs,
          opened: () => this.#active(signal),
          event: (event) => {
            if (signal.aborted) return false;
            this.#active(signal);
            if (event.type === 'ERROR') {
              // 410 Gone: the resourceVersion is too old to resume from; the server ends the watch.
              expired = (event.object as { code?: unknown } | undefined)?.code === 410;
              return !expired;
            }
            delayMs = 0;
            const seen = resourceVersionOf(event.object);
            if (seen !== undefined) resourceVersion = seen;
            this.#apply(event);
            return true;
          },
        });
      } catch (error) {
        signal.throwIfAborted();
        if (error instanceof WatchStatusError && error.statusCode === 410) expired = true;
        else if (error instanceof Error && error.name === 'TimeoutError') delayMs = 0;
        else throw error;
      }
      if (expired) resourceVersion = '';
    }
  }

  /** LISTs and replaces the cache whole; returns the resourceVersion to watch from. */
  async #list(signal: AbortSignal): Promise<string> {
    const listed = await raceWithSignal(this.#options.list(signal), signal);
    signal.throwIfAborted();
    this.#objects = new Map(listed.items.map((item) => [keyOf(item), item]));
    this.#lastListed = this.#lastActivity = this.#options.clock.now();
    this.#lastError = undefined;
    this.#current = true;
    this.#options.observer?.listed?.();
    this.#options.observer?.changed?.();
    if (!this.#synced) {
      this.#synced = true;
      this.#resolveSynced();
    }
    return listed.resourceVersion;
  }

  /** A watched ADDED, MODIFIED or DELETED event into the cache; what does not change it is not a change. */
  #apply(event: WatchEvent): void {
    if (event.type === 'ADDED' || event.type === 'MODIFIED') {
      const object = this.#options.project(event.object);
      const id = keyOf(object);
      const held = this.#objects.get(id);
      const version = object.metadata?.resourceVersion;
      if (held !== undefined && version !== undefined && held.metadata?.resourceVersion === version) return;
      this.#objects.set(id, object);
      this.#options.observer?.changed?.();
    } else if (event.type === 'DELETED') {
      if (!this.#objects.delete(keyOf(event.object as KubeObject))) return;
      this.#options.observer?.changed?.();
    }
  }

  /** The watch answered or delivered something: the connection is alive, and failures are behind. */
  #active(signal: AbortSignal): void {
    if (signal.aborted) return;
    this.#touch(signal);
    this.#failures = 0;
  }

  #touch(signal: AbortSignal): void {
    if (!signal.aborted) this.#lastActivity = this.#options.clock.now();
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
    const stopping = generation.ended;
    this.#stopping.add(stopping);
    void stopping.then(() => this.#stopping.delete(stopping));
  }
}

function key(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

function keyOf(object: KubeObject): string {
  return key(object.metadata?.namespace ?? '', object.metadata?.name ?? '');
}

function resourceVersionOf(object: unknown): string | undefined {
  const version = (object as KubeObject | undefined)?.metadata?.resourceVersion;
  return typeof version === 'string' && version !== '' ? version : undefined;
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
