// The watchdog's decisions on a manual clock: a quiet informer is relisted once stallTimeoutMs
// has passed without activity, a healthy one every resyncMs, an unsynced one never for resync.
import { describe, expect, it } from 'vitest';
import type { Clock } from '../../../ports/clock.ts';
import { runWatchdog, type WatchedInformer } from './watchdog.ts';

/** Time moves only when the watchdog sleeps; after `limit` sleeps it waits for the abort. */
class SteppingClock implements Clock {
  time = 0;
  ticks = 0;
  limit = Number.POSITIVE_INFINITY;
  now = () => this.time;
  sleep = (ms: number, signal?: AbortSignal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      if (this.ticks >= this.limit) {
        signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
        return;
      }
      this.time += ms;
      this.ticks += 1;
      setImmediate(resolve);
    });
}

class FakeInformer implements WatchedInformer {
  lastActivity = 0;
  lastListed = 0;
  synced = true;
  readonly restarts: Array<{ at: number; reason: string }> = [];
  readonly clock: SteppingClock;
  constructor(clock: SteppingClock) {
    this.clock = clock;
  }
  restart(reason: 'stall' | 'resync') {
    this.restarts.push({ at: this.clock.time, reason });
    // A restart relists: activity and listing happen now.
    this.lastActivity = this.lastListed = this.clock.time;
  }
}

async function runFor(
  clock: SteppingClock,
  ticks: number,
  options: { informers: WatchedInformer[]; stallTimeoutMs: number; resyncMs: number },
) {
  clock.limit = ticks;
  const stop = new AbortController();
  const running = runWatchdog({ ...options, clock, signal: stop.signal });
  while (clock.ticks < ticks) await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setImmediate(resolve));
  stop.abort();
  await running;
}

describe('watchdog', () => {
  it('relists an informer that has been silent for stallTimeoutMs, and not before', async () => {
    const clock = new SteppingClock();
    const silent = new FakeInformer(clock);
    const busy = new FakeInformer(clock);
    const keepBusy = {
      get lastActivity() {
        return clock.time;
      },
      get lastListed() {
        return 0;
      },
      synced: true,
      restart: (r: 'stall' | 'resync') => busy.restart(r),
    };
    await runFor(clock, 10, { informers: [silent, keepBusy], stallTimeoutMs: 1_000, resyncMs: 0 });
    // Checked every 250 ms: the first check at or after 1000 ms of silence restarts it.
    expect(silent.restarts).toEqual([
      { at: 1_000, reason: 'stall' },
      { at: 2_000, reason: 'stall' },
    ]);
    expect(busy.restarts).toEqual([]);
  });

  it('relists every resyncMs a synced informer that is otherwise healthy; never an unsynced one', async () => {
    const clock = new SteppingClock();
    const healthy = {
      inner: new FakeInformer(clock),
      get lastActivity() {
        return clock.time;
      },
      get lastListed() {
        return this.inner.lastListed;
      },
      synced: true,
      restart(r: 'stall' | 'resync') {
        this.inner.restart(r);
      },
    };
    const unsynced = {
      inner: new FakeInformer(clock),
      get lastActivity() {
        return clock.time;
      },
      lastListed: 0,
      synced: false,
      restart(r: 'stall' | 'resync') {
        this.inner.restart(r);
      },
    };
    await runFor(clock, 12, { informers: [healthy, unsynced], stallTimeoutMs: 10_000, resyncMs: 400 });
    expect(healthy.inner.restarts).toEqual([
      { at: 400, reason: 'resync' },
      { at: 800, reason: 'resync' },
      { at: 1_200, reason: 'resync' },
    ]);
    expect(unsynced.inner.restarts).toEqual([]);
  });

  it('stops when its signal aborts', async () => {
    const clock = new SteppingClock();
    const stop = new AbortController();
    stop.abort();
    await runWatchdog({ informers: [], clock, stallTimeoutMs: 100, resyncMs: 0, signal: stop.signal });
    expect(clock.ticks).toBe(0);
  });
});
