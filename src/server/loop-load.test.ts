import type { EventLoopUtilization } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { LoopLoad } from './loop-load.ts';

function spin(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A scripted loop: `run(active, idle)` advances its clock by both and its busy time by `active`.
 * It answers in performance.eventLoopUtilization's two forms (a reading, or the difference of two).
 */
function scriptedLoop() {
  let clock = 0;
  let active = 0;
  const reads: number[] = [];
  const utilization = ((current?: EventLoopUtilization, previous?: EventLoopUtilization): EventLoopUtilization => {
    if (current !== undefined && previous !== undefined) {
      const busy = current.active - previous.active;
      const idle = current.idle - previous.idle;
      return { active: busy, idle, utilization: busy / (busy + idle) };
    }
    reads.push(clock);
    return { active, idle: clock - active, utilization: clock === 0 ? 0 : active / clock };
  }) as typeof performance.eventLoopUtilization;
  return {
    reads,
    options: { utilization, now: () => clock },
    run(busyMs: number, idleMs: number) {
      clock += busyMs + idleMs;
      active += busyMs;
    },
  };
}

describe('LoopLoad', () => {
  it('reads Node’s own accounting: busy after the loop was blocked, not after it waited', async () => {
    const load = new LoopLoad({ windowMs: 10 });
    spin(20);
    expect(load.busy()).toBe(true);
    // Idle from here on; on a loaded machine a window may still count the thread's descheduled time
    // as busy, so the loop is given a few windows to read idle, never a busy one counted as idle.
    let idle = false;
    for (let tries = 0; tries < 20 && !idle; tries++) {
      await sleep(30);
      idle = !load.busy();
    }
    expect(idle).toBe(true);
  });

  it('is busy above the threshold only, over the window just past', () => {
    const loop = scriptedLoop();
    const load = new LoopLoad({ ...loop.options, windowMs: 5, busyAbove: 0.5 });
    loop.run(2.5, 2.5);
    expect(load.busy()).toBe(false);
    loop.run(3, 2);
    expect(load.busy()).toBe(true);
    // The earlier, busier window does not count: only the one since the last reading.
    loop.run(1, 9);
    expect(load.busy()).toBe(false);
  });

  it('keeps its answer within a window and reads the source at most once per window', () => {
    const loop = scriptedLoop();
    const load = new LoopLoad({ ...loop.options, windowMs: 5 });
    loop.run(5, 0);
    expect(load.busy()).toBe(true);
    loop.run(0, 4);
    expect(load.busy()).toBe(true);
    loop.run(0, 0.5);
    expect(load.busy()).toBe(true);
    expect(loop.reads).toEqual([0, 5]);
    loop.run(0, 0.5);
    expect(load.busy()).toBe(false);
    expect(loop.reads).toEqual([0, 5, 10]);
  });

  it('starts idle: nothing is held before a window has been measured', () => {
    const loop = scriptedLoop();
    const load = new LoopLoad(loop.options);
    loop.run(1, 0);
    expect(load.busy()).toBe(false);
  });

  it.each([
    [{ windowMs: 0 }, /windowMs must be a positive number of milliseconds, got 0/],
    [{ windowMs: Number.NaN }, /windowMs must be a positive number/],
    [{ windowMs: Number.POSITIVE_INFINITY }, /windowMs must be a positive number/],
    [{ busyAbove: 1 }, /busyAbove must be in \[0, 1\), got 1/],
    [{ busyAbove: -0.1 }, /busyAbove must be in \[0, 1\)/],
  ])('refuses %o', (options, message) => {
    expect(() => new LoopLoad(options)).toThrow(message);
  });
});
