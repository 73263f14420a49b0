// The benchmark's p99-ratio interval (bench/interval.ts): a statistic the docs quote, so it is
// checked like code — against pooling done the slow way, and on slices whose answer is known.
import { describe, expect, it } from 'vitest';
import { addedRatioInterval, ratioInterval, SortedSlices } from '../../bench/interval.ts';
import { percentile } from '../../bench/load.ts';

/** Deterministic latencies: `slices` slices of `size`, value f(slice, index). */
const slices = (count: number, size: number, f: (slice: number, index: number) => number) =>
  Array.from({ length: count }, (_, s) => Array.from({ length: size }, (_, i) => f(s, i)));

/** A fixed pseudo-random sequence for test data (not the module's generator). */
function lcg(seed: number): () => number {
  let state = seed;
  return () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
}

describe('SortedSlices.percentile', () => {
  it('ranks the drawn slices, each counted as often as drawn, exactly as sorting them pooled would', () => {
    const random = lcg(7);
    const data = slices(12, 50, () => Math.round(random() * 1000) / 100);
    const sorted = new SortedSlices(data);
    for (let trial = 0; trial < 200; trial++) {
      const times = new Uint32Array(data.length);
      for (let i = 0; i < data.length; i++) times[Math.floor(random() * data.length)]! += 1;
      const pooled = data.flatMap((slice, i) => Array.from({ length: times[i]! }, () => slice).flat()).sort((a, b) => a - b);
      for (const q of [0.01, 0.5, 0.9, 0.99, 0.999]) expect(sorted.percentile(times, q)).toBe(percentile(pooled, q));
    }
  });

  it('gives NaN when nothing is drawn', () => {
    expect(new SortedSlices([[1, 2, 3]]).percentile(new Uint32Array(1), 0.5)).toBeNaN();
  });
});

describe('ratioInterval', () => {
  it('is exactly 1 for two sides with the same slices, and exactly the factor for a side scaled by it', () => {
    const random = lcg(3);
    const baseline = slices(30, 1000, () => 0.2 + random());
    expect(ratioInterval(baseline, baseline, { quantile: 0.99 })).toEqual([1, 1]);
    const [low, high] = ratioInterval(
      baseline,
      baseline.map((s) => s.map((x) => x * 1.5)),
      { quantile: 0.99 },
    );
    expect(low).toBeCloseTo(1.5, 12);
    expect(high).toBeCloseTo(1.5, 12);
  });

  it('spans from no difference to the whole difference when one slow second makes the p99', () => {
    // Every latency 1 ms on both sides, except one whole slice of ours at 5 ms: pooled, that slice
    // is 1/30 of ours and sets its p99 (ratio 5); a draw that misses it (about a third of draws) gives 1.
    const baseline = slices(30, 1000, () => 1);
    const ours = slices(30, 1000, (s) => (s === 3 ? 5 : 1));
    expect(ratioInterval(baseline, ours, { quantile: 0.99 })).toEqual([1, 5]);
    // The median is untouched by one slow slice in thirty unless a draw takes it about fifteen times.
    expect(ratioInterval(baseline, ours, { quantile: 0.5 })).toEqual([1, 1]);
  });

  it('repeats for the same seed and moves with another', () => {
    const random = lcg(11);
    const baseline = slices(30, 200, () => random());
    const ours = slices(30, 200, () => random() * 1.2);
    const once = ratioInterval(baseline, ours, { quantile: 0.99, seed: 5 });
    expect(ratioInterval(baseline, ours, { quantile: 0.99, seed: 5 })).toEqual(once);
    expect(ratioInterval(baseline, ours, { quantile: 0.99, seed: 6 })).not.toEqual(once);
    expect(once[0]).toBeLessThan(once[1]);
  });

  it('refuses sides that did not take the same turns, and nonsense options', () => {
    expect(() => ratioInterval([[1]], [[1], [2]], { quantile: 0.99 })).toThrow(/as many slices \(1 against 2\)/);
    expect(() => ratioInterval([], [], { quantile: 0.99 })).toThrow(/no slices/);
    expect(() => ratioInterval([[1]], [[1]], { quantile: 1 })).toThrow(/strictly between 0 and 1/);
    expect(() => ratioInterval([[1]], [[1]], { quantile: 0.99, draws: 0 })).toThrow(/draws/);
  });
});

describe('addedRatioInterval', () => {
  const floor = slices(30, 1000, () => 1);

  it('is exactly the ratio of what each adds over the floor when no slice stands out', () => {
    const ours = slices(30, 1000, () => 2);
    const peer = slices(30, 1000, () => 3);
    expect(addedRatioInterval(floor, ours, peer, { quantile: 0.99 })).toEqual({ interval: [0.5, 0.5], defined: 1 });
  });

  it("spans the draws with and without one slow second of the peer's", () => {
    // The peer adds 2 ms, but 10 ms in slice 7 (1/30 of its writes, so its p99 when drawn): 1/10 or 1/2.
    const ours = slices(30, 1000, () => 2);
    const peer = slices(30, 1000, (s) => (s === 7 ? 11 : 3));
    expect(addedRatioInterval(floor, ours, peer, { quantile: 0.99 })).toEqual({ interval: [0.1, 0.5], defined: 1 });
  });

  it('has no interval where the peer adds nothing, and says how many draws had a ratio', () => {
    const ours = slices(30, 1000, () => 2);
    expect(addedRatioInterval(floor, ours, floor, { quantile: 0.99 })).toEqual({ interval: undefined, defined: 0 });
    // Slice 2 the only one where the peer adds anything: draws that miss it (about a third) have no ratio.
    const peer = slices(30, 1000, (s) => (s === 2 ? 3 : 1));
    const { interval, defined } = addedRatioInterval(floor, ours, peer, { quantile: 0.99 });
    expect(interval).toEqual([0.5, 0.5]);
    expect(defined).toBeGreaterThan(0.5);
    expect(defined).toBeLessThan(0.8);
  });

  it('refuses configurations that did not take the same turns, and nonsense options', () => {
    expect(() => addedRatioInterval([[1]], [[1]], [[1], [2]], { quantile: 0.99 })).toThrow(/as many slices \(1, 1, 2\)/);
    expect(() => addedRatioInterval([], [], [], { quantile: 0.99 })).toThrow(/no slices/);
    expect(() => addedRatioInterval([[1]], [[1]], [[1]], { quantile: 0 })).toThrow(/strictly between 0 and 1/);
  });
});
