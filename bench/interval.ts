// How sure is a p99 ratio? The fixed-rate runs give each side the same one-second slices of the
// machine, and a slow stretch of the machine (a burst of the host's own work) is what moves a p99:
// one bad second holds more than 1 % of a 30-second run. So the ratio is resampled by slice: draw
// slice indices with replacement, pool both sides' latencies from the drawn slices (the same
// indices on both sides, as the slices were taken in turns), and read each side's percentile. The
// spread of the ratio over the draws is its interval (a paired percentile bootstrap). Hand-written
// because it is a few dozen lines over our own slices; a seeded generator makes a run's interval
// repeatable.

import { seededRandom } from '../src/util/seeded-random.ts';
import { percentile } from './load.ts';

export interface RatioIntervalOptions {
  /** The percentile, 0–1 (0.99 for p99). */
  quantile: number;
  /** Resampled draws (default 2,000). */
  draws?: number;
  /** Two-sided coverage, 0–1 (default 0.95). */
  confidence?: number;
  /** Seed of the draws (default 1): the same slices give the same interval. */
  seed?: number;
}

/** The interval of `ours / baseline` at `quantile`, resampled by paired slice. */
export function ratioInterval(
  baseline: readonly (readonly number[])[],
  ours: readonly (readonly number[])[],
  options: RatioIntervalOptions,
): [low: number, high: number] {
  const { quantile, draws = 2000, confidence = 0.95, seed = 1 } = options;
  checkOptions('ratioInterval', quantile, confidence, draws);
  if (baseline.length !== ours.length)
    throw new Error(`ratioInterval: the sides took turns, so they need as many slices (${baseline.length} against ${ours.length})`);
  if (baseline.length === 0) throw new Error('ratioInterval: no slices');
  const next = seededRandom(seed);
  const n = baseline.length;
  const sides = [new SortedSlices(baseline), new SortedSlices(ours)] as const;
  const ratios = new Float64Array(draws);
  const times = new Uint32Array(n);
  for (let d = 0; d < draws; d++) {
    times.fill(0);
    for (let i = 0; i < n; i++) times[Math.floor(next() * n)]! += 1;
    ratios[d] = sides[1].percentile(times, quantile) / sides[0].percentile(times, quantile);
  }
  ratios.sort();
  const tail = (1 - confidence) / 2;
  return [percentile(ratios, tail), percentile(ratios, 1 - tail)];
}

/**
 * The interval of the added-latency ratio `(ours − floor) / (peer − floor)` at `quantile`, the three
 * resampled by the same slice indices (they took turns, so slice i of each shares a stretch of the
 * machine). A draw where the peer adds nothing (its percentile at or below the floor's) has no
 * ratio and is left out; `defined` says what share of the draws had one.
 */
export function addedRatioInterval(
  floor: readonly (readonly number[])[],
  ours: readonly (readonly number[])[],
  peer: readonly (readonly number[])[],
  options: RatioIntervalOptions,
): { interval: [low: number, high: number] | undefined; defined: number } {
  const { quantile, draws = 2000, confidence = 0.95, seed = 1 } = options;
  checkOptions('addedRatioInterval', quantile, confidence, draws);
  if (floor.length !== ours.length || floor.length !== peer.length)
    throw new Error(
      `addedRatioInterval: the configurations took turns, so they need as many slices (${floor.length}, ${ours.length}, ${peer.length})`,
    );
  if (floor.length === 0) throw new Error('addedRatioInterval: no slices');
  const next = seededRandom(seed);
  const n = floor.length;
  const [f, o, p] = [new SortedSlices(floor), new SortedSlices(ours), new SortedSlices(peer)];
  const ratios: number[] = [];
  const times = new Uint32Array(n);
  for (let d = 0; d < draws; d++) {
    times.fill(0);
    for (let i = 0; i < n; i++) times[Math.floor(next() * n)]! += 1;
    const base = f.percentile(times, quantile);
    const added = p.percentile(times, quantile) - base;
    if (added > 0) ratios.push((o.percentile(times, quantile) - base) / added);
  }
  if (ratios.length === 0) return { interval: undefined, defined: 0 };
  ratios.sort((a, b) => a - b);
  const tail = (1 - confidence) / 2;
  return { interval: [percentile(ratios, tail), percentile(ratios, 1 - tail)], defined: ratios.length / draws };
}

function checkOptions(name: string, quantile: number, confidence: number, draws: number): void {
  if (!(quantile > 0 && quantile < 1) || !(confidence > 0 && confidence < 1) || !Number.isInteger(draws) || draws < 1) {
    throw new Error(
      `${name}: quantile and confidence must lie strictly between 0 and 1 and draws be a whole number ≥ 1 (got ${quantile}, ${confidence}, ${draws})`,
    );
  }
}

/**
 * One side's slices, each sorted once, and every latency of the side sorted together: a draw's
 * percentile is then found without pooling (the draws would otherwise sort 30,000 numbers each).
 */
export class SortedSlices {
  readonly #slices: Float64Array[];
  readonly #all: Float64Array;

  constructor(slices: readonly (readonly number[])[]) {
    this.#slices = slices.map((slice) => Float64Array.from(slice).sort());
    this.#all = Float64Array.from(slices.flat()).sort();
  }

  /**
   * The percentile of the slices pooled, slice i counted times[i] times, ranked as percentile()
   * ranks a sorted array: the smallest latency with more than `rank` pooled latencies at or below it.
   */
  percentile(times: Uint32Array, quantile: number): number {
    let size = 0;
    for (let i = 0; i < this.#slices.length; i++) size += times[i]! * this.#slices[i]!.length;
    if (size === 0) return Number.NaN;
    const rank = Math.min(size - 1, Math.ceil(quantile * size) - 1);
    let low = 0;
    let high = this.#all.length - 1;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.#atOrBelow(this.#all[middle]!, times) > rank) high = middle;
      else low = middle + 1;
    }
    return this.#all[low]!;
  }

  #atOrBelow(value: number, times: Uint32Array): number {
    let count = 0;
    for (let i = 0; i < this.#slices.length; i++) {
      if (times[i] === 0) continue;
      const slice = this.#slices[i]!;
      let low = 0;
      let high = slice.length;
      while (low < high) {
        const middle = (low + high) >>> 1;
        if (slice[middle]! <= value) low = middle + 1;
        else high = middle;
      }
      count += times[i]! * low;
    }
    return count;
  }
}
