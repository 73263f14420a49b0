// Time and randomness under a test's control (the Clock and Random ports).
import { systemClock, type Clock, type Random } from '../../src/ports/clock.ts';

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

/** A seeded generator (mulberry32) for properties that must hold for any random draw. */
export class SeededRandom implements Random {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  private next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  intBelow(n: number): number {
    return Math.floor(this.next() * n);
  }
  alphanumeric(n: number): string {
    const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
    let out = '';
    for (let i = 0; i < n; i++) out += alphabet[Math.floor(this.next() * alphabet.length)];
    return out;
  }
}
