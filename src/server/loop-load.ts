// Whether the event loop is busy, from its own accounting of idle time (libuv's, as read by
// performance.eventLoopUtilization): the share of the last 50 milliseconds or so it spent running
// callbacks rather than waiting for I/O.
//
// The webhook asks this before writing an answer. A busy loop has more requests already readable,
// so holding the answer for the check phase lets one turn's answers leave together (the caller then
// wakes once for them, not once per answer); a loop with idle time has nothing queued behind the
// request, and holding its answer would only make it wait for whatever else arrived in the same
// turn.
//
// The window is long enough that one stall does not flip it: measured at a steady 1,000 req/s, 5 ms
// windows read busy now and then right after a pause (GC, the VM taking the core), which is exactly
// when the tail is made; 50 ms windows read 0.1-0.4 there and 0.9 or more at saturation.
import { type EventLoopUtilization, performance } from 'node:perf_hooks';

export interface LoopLoadOptions {
  /** How long a measurement covers before the next one starts. Default 50 ms. */
  windowMs?: number;
  /** The share of a window spent running callbacks above which the loop counts as busy. Default 0.5. */
  busyAbove?: number;
  /** The utilization source; Node's own unless a test substitutes one. */
  utilization?: typeof performance.eventLoopUtilization;
  /** Milliseconds on a monotonic clock. */
  now?: () => number;
}

export class LoopLoad {
  readonly #windowMs: number;
  readonly #busyAbove: number;
  readonly #utilization: typeof performance.eventLoopUtilization;
  readonly #now: () => number;
  #last: EventLoopUtilization;
  #lastAt: number;
  #busy = false;

  constructor(options: LoopLoadOptions = {}) {
    const { windowMs = 50, busyAbove = 0.5 } = options;
    if (!(windowMs > 0) || !Number.isFinite(windowMs))
      throw new RangeError(`windowMs must be a positive number of milliseconds, got ${windowMs}`);
    if (!(busyAbove >= 0 && busyAbove < 1)) throw new RangeError(`busyAbove must be in [0, 1), got ${busyAbove}`);
    this.#windowMs = windowMs;
    this.#busyAbove = busyAbove;
    this.#utilization = options.utilization ?? performance.eventLoopUtilization.bind(performance);
    this.#now = options.now ?? (() => performance.now());
    this.#last = this.#utilization();
    this.#lastAt = this.#now();
  }

  /**
   * True when the loop spent more than `busyAbove` of the last full window running callbacks. The
   * answer holds until a window has passed since the last measurement: a caller can ask once per
   * request at any rate, and the source is read at most once a window.
   */
  busy(): boolean {
    const now = this.#now();
    if (now - this.#lastAt >= this.#windowMs) {
      const current = this.#utilization();
      this.#busy = this.#utilization(current, this.#last).utilization > this.#busyAbove;
      this.#last = current;
      this.#lastAt = now;
    }
    return this.#busy;
  }
}
