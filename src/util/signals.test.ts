import { describe, expect, it } from 'vitest';
import { narrowed, raceWithSignal, requestOf, withTimeout } from './signals.ts';

const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

describe('withTimeout', () => {
  it('aborts the work with a TimeoutError when the time is up', async () => {
    const result = withTimeout(
      undefined,
      20,
      (signal) => new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason))),
    );
    await expect(result).rejects.toMatchObject({ name: 'TimeoutError' });
  });

  it("aborts the work with the caller's reason when the caller gives up first", async () => {
    const caller = new AbortController();
    const result = withTimeout(
      caller.signal,
      10_000,
      (signal) => new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason))),
    );
    caller.abort(new Error('client went away'));
    await expect(result).rejects.toThrow('client went away');
  });

  it('starts aborted when the caller already is', async () => {
    const caller = AbortSignal.abort(new Error('too late'));
    await expect(withTimeout(caller, 10_000, async (signal) => signal.reason)).resolves.toMatchObject({ message: 'too late' });
  });

  it('releases its timer and its listener on the caller as soon as the work settles', async () => {
    const caller = new AbortController();
    const before = timers();
    let seen: AbortSignal | undefined;
    await withTimeout(caller.signal, 60_000, async (signal) => {
      seen = signal;
      expect(timers()).toBe(before + 1);
      return 'done';
    });
    expect(timers()).toBe(before);
    caller.abort(new Error('after the fact'));
    expect(seen?.aborted).toBe(false); // no longer linked to the caller
    await expect(withTimeout(undefined, 60_000, async () => Promise.reject(new Error('failed')))).rejects.toThrow('failed');
    expect(timers()).toBe(before);
  });
});

describe('raceWithSignal', () => {
  it('answers with the work when it settles first and with the reason when the signal fires first', async () => {
    await expect(raceWithSignal(Promise.resolve(1), AbortSignal.timeout(1_000))).resolves.toBe(1);
    const never = new Promise<number>(() => {});
    await expect(raceWithSignal(never, AbortSignal.timeout(10))).rejects.toMatchObject({ name: 'TimeoutError' });
  });
});

describe('narrowed', () => {
  it('aborts with the request or sooner, and counts as the request', () => {
    const request = new AbortController();
    const sooner = new AbortController();
    const part = narrowed(request.signal, sooner.signal);
    expect(requestOf(part)).toBe(request.signal);
    expect(requestOf(narrowed(part, new AbortController().signal))).toBe(request.signal);
    expect(requestOf(request.signal)).toBe(request.signal);
    sooner.abort();
    expect(part.aborted).toBe(true);
    expect(request.signal.aborted).toBe(false);
    const other = narrowed(request.signal, new AbortController().signal);
    request.abort();
    expect(other.aborted).toBe(true);
  });
});
