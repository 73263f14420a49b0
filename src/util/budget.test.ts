import { describe, expect, it } from 'vitest';
import { Budget } from './budget.ts';

const never = new AbortController().signal;

describe('Budget', () => {
  it('takes the share before acquire returns while there is room; a second release does nothing', async () => {
    const budget = new Budget(10);
    const a = budget.acquire(6, never);
    const b = budget.acquire(4, never);
    expect(budget.used).toBe(10);
    expect(budget.waiting).toBe(0);
    const release = await a;
    release();
    release();
    expect(budget.used).toBe(4);
    (await b)();
    expect(budget.used).toBe(0);
  });

  it('makes later requests wait their turn, in arrival order, even small ones behind a large one', async () => {
    const budget = new Budget(10);
    const first = await budget.acquire(8, never);
    const order: string[] = [];
    const large = budget.acquire(9, never).then((r) => {
      order.push('large');
      return r;
    });
    const small = budget.acquire(1, never).then((r) => {
      order.push('small');
      return r;
    });
    // 1 would fit now, but the large one came first.
    await new Promise((r) => setTimeout(r, 5));
    expect(order).toEqual([]);
    expect(budget.waiting).toBe(2);
    first();
    (await large)();
    (await small)();
    expect(order).toEqual(['large', 'small']);
    expect(budget.used).toBe(0);
  });

  it('gives up on a waiter whose signal aborts, and lets those behind it in', async () => {
    const budget = new Budget(10);
    const held = await budget.acquire(5, never);
    const controller = new AbortController();
    const blocked = budget.acquire(8, controller.signal);
    const behind = budget.acquire(5, never);
    controller.abort(new Error('deadline'));
    await expect(blocked).rejects.toThrow('deadline');
    const release = await behind;
    expect(budget.used).toBe(10);
    expect(budget.waiting).toBe(0);
    release();
    held();
    expect(budget.used).toBe(0);
  });

  it('refuses at once when the signal has already aborted, and refuses more than the whole budget', async () => {
    const budget = new Budget(10);
    await expect(budget.acquire(1, AbortSignal.abort(new Error('late')))).rejects.toThrow('late');
    expect(() => budget.acquire(11, never)).toThrow(RangeError);
    expect(budget.used).toBe(0);
  });

  it('keeps its queue small while thousands pass through it', async () => {
    const budget = new Budget(1);
    let release = await budget.acquire(1, never);
    const waiting = Array.from({ length: 5000 }, () => budget.acquire(1, never));
    for (const next of waiting) {
      release();
      release = await next;
    }
    release();
    expect(budget.used).toBe(0);
    expect(budget.waiting).toBe(0);
  });

  describe('a share held until collected', () => {
    const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

    it('stays counted after its release until the collector has run, and the collector runs only when the first in line needs its room', async () => {
      const collections: number[] = [];
      const budget = new Budget(10, { collect: () => collections.push(budget.uncollected) });
      (await budget.acquire(6, never, { untilCollected: true }))();
      expect(budget.used).toBe(6);
      expect(budget.uncollected).toBe(6);
      // 4 fits beside what is uncollected: no collection for it.
      const small = budget.acquire(4, never);
      expect(budget.waiting).toBe(0);
      expect(collections).toEqual([]);
      (await small)();
      // 7 fits only once the 6 are collected: it waits for the collection, which runs in a turn of its own.
      const large = budget.acquire(7, never, { untilCollected: true });
      expect(budget.waiting).toBe(1);
      expect(collections).toEqual([]);
      await turn();
      expect(collections).toEqual([6]);
      (await large)();
      expect(budget.used).toBe(7);
      expect(budget.uncollected).toBe(7);
    });

    it('waits for work still in flight when collecting would not make room, and collects once it would', async () => {
      let collections = 0;
      const budget = new Budget(10, { collect: () => collections++ });
      (await budget.acquire(4, never, { untilCollected: true }))();
      const working = await budget.acquire(6, never);
      const next = budget.acquire(7, never);
      await turn();
      expect(collections).toBe(0);
      working();
      await turn();
      expect(collections).toBe(1);
      (await next)();
      expect(budget.used).toBe(0);
    });

    it('comes back on release when the budget has no collector', async () => {
      const budget = new Budget(10);
      (await budget.acquire(6, never, { untilCollected: true }))();
      expect(budget.used).toBe(0);
      expect(budget.uncollected).toBe(0);
    });
  });
});
