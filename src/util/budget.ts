// A budget shared by requests in flight (a weighted semaphore): each takes its share before it
// works and gives it back after, and one that does not fit waits its turn — in arrival order, so
// a large share is never starved by small ones — until it fits or its signal aborts.

/** Gives the share back; calling it again does nothing. */
export type Release = () => void;

interface Waiter {
  readonly amount: number;
  readonly grant: (release: Release) => void;
}

export class Budget {
  readonly capacity: number;
  #used = 0;
  readonly #queue: Waiter[] = [];
  #head = 0;

  constructor(capacity: number) {
    if (!(capacity > 0)) throw new RangeError(`a budget needs a positive capacity, got ${capacity}`);
    this.capacity = capacity;
  }

  /** The amount held by requests at work. */
  get used(): number {
    return this.#used;
  }

  /** Requests waiting for their turn. */
  get waiting(): number {
    return this.#queue.length - this.#head;
  }

  /**
   * Takes `amount`: at once (no promise) when it fits and nobody waits before it, else when its
   * turn comes. Rejects with the signal's reason if the signal aborts first. An amount beyond the
   * capacity can never fit: it is the caller's to refuse.
   */
  acquire(amount: number, signal: AbortSignal): Release | Promise<Release> {
    if (amount > this.capacity) throw new RangeError(`${amount} is more than the whole budget (${this.capacity})`);
    if (signal.aborted) return Promise.reject(signal.reason);
    if (this.waiting === 0 && this.#used + amount <= this.capacity) return this.#take(amount);
    return new Promise<Release>((resolve, reject) => {
      const waiter: Waiter = {
        amount,
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
    });
  }

  #take(amount: number): Release {
    this.#used += amount;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#used -= amount;
      this.#grant();
    };
  }

  /** Lets waiters in, in order, while the first one fits. */
  #grant(): void {
    while (this.#head < this.#queue.length) {
      const next = this.#queue[this.#head]!;
      if (this.#used + next.amount > this.capacity) break;
      this.#head++;
      next.grant(this.#take(next.amount));
    }
    // Drop the served prefix now and then, so the queue does not grow without bound.
    if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
      this.#queue.splice(0, this.#head);
      this.#head = 0;
    }
  }
}
