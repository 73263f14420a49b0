import { describe, expect, it } from 'vitest';
import { SingleFlight } from './singleflight.ts';

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('SingleFlight', () => {
  it('runs identical concurrent work once and hands every caller the result', async () => {
    const flights = new SingleFlight<number>();
    const gate = deferred<number>();
    let runs = 0;
    const work = () => {
      runs++;
      return gate.promise;
    };
    const tickets = [flights.run('k', work), flights.run('k', work), flights.run('k', work)];
    expect(tickets.map((t) => t.joined)).toEqual([false, true, true]);
    gate.resolve(7);
    expect(await Promise.all(tickets.map((t) => t.result))).toEqual([7, 7, 7]);
    await Promise.resolve();
    expect(runs).toBe(1);
    expect(flights.inFlight).toBe(0);
  });

  it('starts fresh work once the previous flight settled, and shares failures', async () => {
    const flights = new SingleFlight<number>();
    const first = flights.run('k', async () => {
      throw new Error('boom');
    });
    const joined = flights.run('k', async () => 1);
    await expect(first.result).rejects.toThrow('boom');
    await expect(joined.result).rejects.toThrow('boom');
    await expect(flights.run('k', async () => 2).result).resolves.toBe(2);
  });

  it('releases an aborting caller at once but keeps the work for the others', async () => {
    const flights = new SingleFlight<string>();
    const gate = deferred<string>();
    let workSignal: AbortSignal | undefined;
    const controller = new AbortController();
    const leaving = flights.run(
      'k',
      (signal) => {
        workSignal = signal;
        return gate.promise;
      },
      controller.signal,
    );
    const staying = flights.run('k', () => gate.promise);
    controller.abort(new Error('gave up'));
    await expect(leaving.result).rejects.toThrow('gave up');
    expect(workSignal?.aborted).toBe(false);
    gate.resolve('done');
    await expect(staying.result).resolves.toBe('done');
  });

  it('aborts the work when every caller has left, and forgets it', async () => {
    const flights = new SingleFlight<string>();
    let workSignal: AbortSignal | undefined;
    const a = new AbortController();
    const b = new AbortController();
    const work = (signal: AbortSignal) => {
      workSignal = signal;
      return new Promise<string>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
    };
    const first = flights.run('k', work, a.signal);
    const second = flights.run('k', work, b.signal);
    await Promise.resolve();
    a.abort(new Error('a'));
    expect(workSignal?.aborted).toBe(false);
    b.abort(new Error('b'));
    expect(workSignal?.aborted).toBe(true);
    await expect(first.result).rejects.toThrow('a');
    await expect(second.result).rejects.toThrow('b');
    expect(flights.inFlight).toBe(0);
    expect(flights.run('k', async () => 'new').joined).toBe(false);
  });

  it('rejects a caller whose signal already aborted without leaving work behind', async () => {
    const flights = new SingleFlight<number>();
    const ticket = flights.run('k', async () => 1, AbortSignal.abort(new Error('late')));
    await expect(ticket.result).rejects.toThrow('late');
    expect(flights.inFlight).toBe(0);
  });
});
