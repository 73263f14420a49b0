// Informer caches that run as one: the same settings for each (page size, timeouts, backoff), one
// connection pool, one watchdog, ready when every cache has listed, closed together. The lookup
// caches (../lookups/lookups.ts) and the RBAC mirror's caches (../rbac-mirror/rbac-informers.ts)
// are each one set.
import type { KubeConfig, V1ListMeta } from '@kubernetes/client-node';
import type { KubeObject } from '../../../api/types.ts';
import { type Clock, type Random, systemClock, systemRandom } from '../../../ports/clock.ts';
import type { Logger } from '../../../ports/logger.ts';
import type { InformerRestartReason } from '../../../ports/recorders.ts';
import { withTimeout } from '../../../util/signals.ts';
import { Informer, type ListResult } from './informer.ts';
import { createKubeRequests, type KubeRequests } from './kube.ts';
import { runWatchdog } from './watchdog.ts';

/** How a set's caches list, retry and are watched over; every field has a default. */
export interface InformerSettings {
  clock?: Clock;
  random?: Random;
  /** Relist every cache this often even when all looks well (default 30 min; 0: never). */
  resyncMs?: number;
  /**
   * Relist a cache that has seen no LIST, watch answer, event or bookmark for this long
   * (default 3 min). A quiet watch is resumed every watchTimeoutMs, so this must be longer.
   */
  stallTimeoutMs?: number;
  /** Give up a watch that brings no answer, event or data for this long and resume it (default 30 s). */
  watchTimeoutMs?: number;
  /** Restart delay after an informer error: doubles per failure up to maxMs (default 1 s .. 30 s). */
  backoff?: { initialMs?: number; maxMs?: number };
  /** LIST page size (default 500): a large list arrives in bounded pieces. */
  listPageSize?: number;
  /** Bound on one LIST page (default 60 s): a hung LIST fails and is retried with backoff. */
  listTimeoutMs?: number;
}

/** Told every LIST, failure and restart of a set's caches, by resource (metrics). */
export interface InformerSetRecorder<R extends string> {
  informerList?(resource: R): void;
  informerError?(resource: R): void;
  informerRestart?(resource: R, reason: InformerRestartReason): void;
}

export type ListPage = (
  page: { limit: number; _continue?: string },
  signal: AbortSignal,
) => Promise<{ items: unknown[]; metadata?: V1ListMeta }>;

export interface InformerSetOptions<R extends string> extends InformerSettings {
  kubeConfig: KubeConfig;
  logger: Logger;
  recorder?: InformerSetRecorder<R> | undefined;
  /** Called whenever any cache changes: once per LIST, once per watched event that changes it. */
  onChange?: (() => void) | undefined;
  /** Said after the resource in a not-ready reason: "secrets cache<label> has not synced". */
  label?: string;
}

export interface InformerSet<R extends string> {
  /** The set's connection pool, for the live reads beside the caches. */
  readonly requests: KubeRequests;
  /** A cache of one resource across all namespaces, not yet started. */
  informer<T extends KubeObject>(resource: R, path: string, listPage: ListPage, project: (object: unknown) => T): Informer<T>;
  /** Starts these caches and the watchdog over them; the rest of the set never runs. */
  start(informers: ReadonlyArray<Informer<KubeObject>>): void;
  /** Every started cache has listed, and none has failed, stalled or restarted since. */
  readonly inSync: boolean;
  /** Resolves when every started cache has completed its first LIST; rejects if closed before. */
  ready(): Promise<void>;
  /** One line per started cache that has not synced yet (empty when ready). */
  notReadyReasons(): string[];
  /** Stops the caches and the watchdog, aborts open watches, releases connections. */
  close(): Promise<void>;
}

export function createInformerSet<R extends string>(options: InformerSetOptions<R>): InformerSet<R> {
  const { kubeConfig, logger, recorder = {}, onChange, label = '' } = options;
  const clock = options.clock ?? systemClock;
  const random = options.random ?? systemRandom;
  const listPageSize = options.listPageSize ?? 500;
  const listTimeoutMs = options.listTimeoutMs ?? 60_000;
  const backoff = { initialMs: options.backoff?.initialMs ?? 1_000, maxMs: options.backoff?.maxMs ?? 30_000 };
  const requests = createKubeRequests(kubeConfig);
  const closing = new AbortController();
  let running: ReadonlyArray<Informer<KubeObject>> = [];
  let watchdog: Promise<void> = Promise.resolve();
  let closed: Promise<void> | undefined;

  return {
    requests,
    informer<T extends KubeObject>(resource: R, path: string, listPage: ListPage, project: (object: unknown) => T) {
      return new Informer<T>({
        resource,
        kubeConfig,
        path,
        list: (signal) =>
          listAll((page) => withTimeout(signal, listTimeoutMs, (bounded) => listPage(page, bounded)), project, listPageSize),
        project,
        clock,
        random,
        logger,
        backoff,
        watchTimeoutMs: options.watchTimeoutMs,
        observer: {
          listed: () => recorder.informerList?.(resource),
          failed: () => recorder.informerError?.(resource),
          restarted: (reason) => recorder.informerRestart?.(resource, reason),
          ...(onChange ? { changed: onChange } : {}),
        },
      });
    },
    start(informers) {
      running = informers;
      for (const cache of informers) cache.start();
      watchdog = runWatchdog({
        informers,
        clock,
        stallTimeoutMs: options.stallTimeoutMs ?? 3 * 60_000,
        resyncMs: options.resyncMs ?? 30 * 60_000,
        signal: closing.signal,
      });
    },
    get inSync() {
      return running.every((cache) => cache.current);
    },
    async ready() {
      await Promise.all(running.map((cache) => cache.whenSynced()));
    },
    notReadyReasons() {
      return running
        .filter((cache) => !cache.synced)
        .map(
          (cache) =>
            `${cache.resource} cache${label} has not synced${cache.lastError === undefined ? '' : ` (last error: ${cache.lastError})`}`,
        );
    },
    close() {
      closed ??= (async () => {
        closing.abort();
        await Promise.all([watchdog, ...running.map((cache) => cache.close())]);
        await requests.close();
      })();
      return closed;
    },
  };
}

/**
 * Every page of a LIST, each projected as it arrives (a page of Secrets is dropped before the
 * next is fetched); the first page's resourceVersion is the snapshot the watch resumes from.
 */
async function listAll<T>(
  listPage: (page: { limit: number; _continue?: string }) => Promise<{ items: unknown[]; metadata?: V1ListMeta }>,
  project: (object: unknown) => T,
  limit: number,
): Promise<ListResult<T>> {
  const items: T[] = [];
  let resourceVersion: string | undefined;
  let next: string | undefined;
  do {
    const page = await listPage(next === undefined ? { limit } : { limit, _continue: next });
    resourceVersion ??= page.metadata?.resourceVersion ?? '';
    for (const item of page.items) items.push(project(item));
    next = page.metadata?._continue || undefined;
  } while (next !== undefined);
  return { items, resourceVersion: resourceVersion ?? '' };
}
