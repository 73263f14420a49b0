import { describe, expect, it } from 'vitest';
import { parseDuration } from './duration.ts';

describe('parseDuration', () => {
  it.each([
    ['9s', 9000],
    ['500ms', 500],
    ['1m30s', 90_000],
    ['1h', 3_600_000],
    ['2', 2000],
    ['1.5s', 1500],
  ])('%s is %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['', 'abc', '10 parsecs', '5x', 's', '-1s'])('rejects %j', (text) => {
    expect(() => parseDuration(text)).toThrow('invalid duration');
  });
});
