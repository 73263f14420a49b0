// Informers stall silently: a watch whose connection died half-open, or a LIST or watch that
// never answers, produces no error and no event, and the cache quietly goes stale
// (kubernetes-client/javascript #364, #596, #958). The watchdog notices the silence — nothing
// listed, connected, delivered or bookmarked for stallTimeoutMs — and forces a relist; it also
// relists every resyncMs regardless, so a missed event cannot stay missed for long.
import type { Clock } from '../../../ports/clock.ts';

export interface WatchedInformer {
  readonly lastActivity: number;
  readonly lastListed: number;
  readonly synced: boolean;
  restart(reason: 'stall' | 'resync'): void;
}

export interface WatchdogOptions {
  informers: readonly WatchedInformer[];
  clock: Clock;
  stallTimeoutMs: number;
  /** 0 turns periodic relisting off. */
  resyncMs: number;
  /** Stops the watchdog. */
  signal: AbortSignal;
}

/** Runs until signal aborts; resolves then. */
export async function runWatchdog(options: WatchdogOptions): Promise<void> {
  const { informers, clock, stallTimeoutMs, resyncMs, signal } = options;
  const shortest = resyncMs > 0 ? Math.min(stallTimeoutMs, resyncMs) : stallTimeoutMs;
  // Checking four times per period bounds how late a stall is noticed to a quarter of it.
  const intervalMs = Math.max(10, Math.floor(shortest / 4));
  while (!signal.aborted) {
    try {
      await clock.sleep(intervalMs, signal);
    } catch {
      return;
    }
    const now = clock.now();
    for (const informer of informers) {
      if (now - informer.lastActivity >= stallTimeoutMs) informer.restart('stall');
      else if (resyncMs > 0 && informer.synced && now - informer.lastListed >= resyncMs) informer.restart('resync');
    }
  }
}
