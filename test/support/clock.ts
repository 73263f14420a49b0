// Time and randomness under a test's control (the Clock and Random ports).
import { type Clock, type Random, systemClock } from '../../src/ports/clock.ts';
import { seededRandom } from '../../src/util/seeded-random.ts';

/** A clock that records each requested pause and resolves at once; its time stands at 0. */
export class RecordingClock implements Clock {
  readonly sleeps: number[] = [];
  now(): number {
    return 0;
  }
  sleep(ms: number): Promise<void> {
    this.sleeps.push(ms);
    return Promise.resolve();
  }
}

/** A clock the test moves forward; its pauses last at most 5 ms of real time. */
export class ManualClock implements Clock {
  time = 1_000_000;
  now = () => this.time;
  sleep = (ms: number, signal?: AbortSignal) => systemClock.sleep(Math.min(ms, 5), signal);
  advance(ms: number): void {
    this.time += ms;
  }
}

/** Fixed answers: intBelow returns `offset` (checked against n), alphanumeric repeats `suffix`. */
export class FixedRandom implements Random {
  readonly intBelowCalls: number[] = [];
  private readonly offset: number;
  private readonly suffix: string;
  constructor(offset = 42, suffix = 'x7k2q') {
    this.offset = offset;
    this.suffix = suffix;
  }
  intBelow(n: number): number {
    this.intBelowCalls.push(n);
    if (this.offset >= n) throw new Error(`FixedRandom offset ${this.offset} is not below ${n}`);
    return this.offset;
  }
  alphanumeric(n: number): string {
    return this.suffix.repeat(Math.ceil(n / this.suffix.length)).slice(0, n);
  }
}

/** Random draws from a seed (src/util/seeded-random.ts), for properties that must hold for any draw. */
export class SeededRandom implements Random {
  readonly #next: () => number;
  constructor(seed: number) {
    this.#next = seededRandom(seed);
  }
  intBelow(n: number): number {
    return Math.floor(this.#next() * n);
  }
  alphanumeric(n: number): string {
    // apimachinery's rand.String alphabet, as systemRandom's.
    const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
    let out = '';
    for (let i = 0; i < n; i++) out += alphabet[Math.floor(this.#next() * alphabet.length)];
    return out;
  }
}
