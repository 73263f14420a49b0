// A budget shared by requests in flight (a weighted semaphore): each takes its share before it
// works and gives it back after, and one that does not fit waits its turn — in arrival order, so
// a large share is never starved by small ones — until it fits or its signal aborts.
//
// Some shares stand for heap that only the garbage collector gives back: what a large request
// allocated stays after it ends, until a full collection, and V8 runs one when the heap nears the
// limit it chose, not when a budget needs the room. Such a share stays counted after its release
// until the budget's collector has run; the budget runs it only when the first in line would fit
// after it and not before, so the heap is collected when the room is needed, not after every
// request.

/** Gives the share back; calling it again does nothing. */
export type Release = () => void;

interface Waiter {
  readonly amount: number;
  readonly untilCollected: boolean;
  readonly grant: (release: Release) => void;
}

export interface BudgetOptions {
  /**
   * Frees, synchronously, what released shares taken `untilCollected` stood for (a full garbage
   * collection). Without one, such shares come back on release like any other.
   */
  collect?: () => void;
}

export interface AcquireOptions {
  /** The share stays counted after its release, until the budget's collector has run. */
  untilCollected?: boolean;
}

export class Budget {
  readonly capacity: number;
  #used = 0;
  /** Of #used: released shares waiting for the collector. */
  #uncollected = 0;
  readonly #collect: (() => void) | undefined;
  #collecting = false;
  readonly #queue: Waiter[] = [];
  #head = 0;

  constructor(capacity: number, options: BudgetOptions = {}) {
    if (!(capacity > 0)) throw new RangeError(`a budget needs a positive capacity, got ${capacity}`);
    this.capacity = capacity;
    this.#collect = options.collect;
  }

  /** The amount held by requests at work, and by finished ones until their memory is collected. */
  get used(): number {
    return this.#used;
  }

  /** Of `used`: released shares waiting for the collector. */
  get uncollected(): number {
    return this.#uncollected;
  }

  /** Requests waiting for their turn. */
  get waiting(): number {
    return this.#queue.length - this.#head;
  }

  /**
   * Takes `amount`: before it returns when it fits and nobody waits before it, else when its turn
   * comes. Rejects with the signal's reason if the signal aborts first. An amount beyond the
   * capacity can never fit: it is the caller's to refuse (a RangeError, thrown at once).
   */
  acquire(amount: number, signal: AbortSignal, options: AcquireOptions = {}): Promise<Release> {
    if (amount > this.capacity) throw new RangeError(`${amount} is more than the whole budget (${this.capacity})`);
    if (signal.aborted) return Promise.reject(signal.reason);
    const untilCollected = options.untilCollected === true && this.#collect !== undefined;
    if (this.waiting === 0 && this.#used + amount <= this.capacity) return Promise.resolve(this.#take(amount, untilCollected));
    return new Promise<Release>((resolve, reject) => {
      const waiter: Waiter = {
        amount,
        untilCollected,
        grant: (release) => {
          signal.removeEventListener('abort', onAbort);
          resolve(release);
        },
      };
      const onAbort = () => {
        const index = this.#queue.indexOf(waiter, this.#head);
        if (index >= 0) this.#queue.splice(index, 1);
        reject(signal.reason);
        // The one that left may have been holding up smaller ones behind it.
        this.#grant();
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.#queue.push(waiter);
      // First in line, it may wait only for a collection.
      if (this.waiting === 1) this.#grant();
    });
  }

  #take(amount: number, untilCollected: boolean): Release {
    this.#used += amount;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (untilCollected) this.#uncollected += amount;
      else this.#used -= amount;
      this.#grant();
    };
  }

  /** Lets waiters in, in order, while the first one fits; collects first when only that makes room. */
  #grant(): void {
    while (this.#head < this.#queue.length) {
      const next = this.#queue[this.#head]!;
      if (this.#used + next.amount > this.capacity) {
        if (this.#uncollected > 0 && this.#used - this.#uncollected + next.amount <= this.capacity) this.#collectSoon();
        break;
      }
      this.#head++;
      next.grant(this.#take(next.amount, next.untilCollected));
    }
    // Drop the served prefix now and then, so the queue does not grow without bound.
    if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
      this.#queue.splice(0, this.#head);
      this.#head = 0;
    }
  }

  /**
   * Collects in a turn of the event loop of its own: a share is released from inside the work it
   * paid for, whose frame still holds that work's objects, and a collection run there frees none.
   */
  #collectSoon(): void {
    if (this.#collecting) return;
    this.#collecting = true;
    setImmediate(() => {
      this.#collecting = false;
      this.#collect!();
      this.#used -= this.#uncollected;
      this.#uncollected = 0;
      this.#grant();
    });
  }
}
