import { describe, expect, it } from 'vitest';
import { goDuration, int64 } from './go-duration.ts';

describe('goDuration', () => {
  // Go's own time.Duration String examples and the plugin's bounds.
  it.each([
    [0n, '0s'],
    [1n, '1ns'],
    [1100n, '1.1µs'],
    [2_200_000n, '2.2ms'],
    [-2_000_000n, '-2ms'],
    [1_000_000_000n, '1s'],
    [3_300_000_000n, '3.3s'],
    [30_000_000_000n, '30s'],
    [300_000_000_000n, '5m0s'],
    [1_800_000_000_001n, '30m0.000000001s'],
    [4n * 3_600_000_000_000n + 5n * 60_000_000_000n + 6_000_000_000n, '4h5m6s'],
    [-9_223_372_036_854_775_808n, '-2562047h47m16.854775808s'],
  ])('%s ns is %s', (ns, text) => {
    expect(goDuration(ns)).toBe(text);
  });

  it('wraps as int64 does', () => {
    expect(int64(9_223_372_036_854_775_807n + 1n)).toBe(-9_223_372_036_854_775_808n);
  });
});
