import { describe, expect, it } from 'vitest';
import { isPromiseLike, runSteps, settled, type MaybePromise, type Steps } from './maybe-async.ts';

/** Adds up values that may be at hand or pending, logging the order things happen in. */
function* sum(values: Array<MaybePromise<number>>, log: string[]): Steps<number> {
  let total = 0;
  for (const [i, value] of values.entries()) {
    log.push(`ask ${i}`);
    total += yield* settled(value);
    log.push(`got ${i}`);
  }
  return total;
}

describe('runSteps', () => {
  it('finishes synchronously, with no promise, when every value is at hand', () => {
    const log: string[] = [];
    const result = runSteps(sum([1, 2, 3], log));
    expect(result).toBe(6);
    expect(isPromiseLike(result)).toBe(false);
    expect(log).toEqual(['ask 0', 'got 0', 'ask 1', 'got 1', 'ask 2', 'got 2']);
  });

  it('throws synchronously what the steps throw before anything is pending', () => {
    function* failing(): Steps<number> {
      yield* settled(1);
      throw new Error('denied');
    }
    expect(() => runSteps(failing())).toThrow('denied');
  });

  it('continues in order once a pending value settles, and resolves to the result', async () => {
    const log: string[] = [];
    let release!: (value: number) => void;
    const pending = new Promise<number>((resolve) => (release = resolve));
    const result = runSteps(sum([1, pending, 3], log));
    expect(isPromiseLike(result)).toBe(true);
    expect(log).toEqual(['ask 0', 'got 0', 'ask 1']);
    release(2);
    expect(await result).toBe(6);
    expect(log).toEqual(['ask 0', 'got 0', 'ask 1', 'got 1', 'ask 2', 'got 2']);
  });

  it('throws a rejection into the steps at the yield, where try/catch sees it as it would an await', async () => {
    function* recovering(): Steps<string> {
      try {
        yield* settled(Promise.reject(new Error('connection refused')));
        return 'not reached';
      } catch (error) {
        return `recovered from ${(error as Error).message}`;
      }
    }
    await expect(runSteps(recovering())).resolves.toBe('recovered from connection refused');
  });

  it('rejects with what the steps throw after a pending value', async () => {
    function* failingLater(): Steps<number> {
      const value = yield* settled(Promise.resolve(1));
      throw new Error(`denied after ${value}`);
    }
    await expect(runSteps(failingLater())).rejects.toThrow('denied after 1');
  });

  it('waits on any thenable, not only native promises', async () => {
    const thenable: PromiseLike<number> = { then: (resolve) => Promise.resolve(5).then(resolve) };
    const log: string[] = [];
    await expect(runSteps(sum([thenable as unknown as MaybePromise<number>, 1], log))).resolves.toBe(6);
  });
});
