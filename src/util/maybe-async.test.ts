import { describe, expect, it } from 'vitest';
import { isPromiseLike } from './maybe-async.ts';

describe('isPromiseLike', () => {
  it.each([
    ['a promise', Promise.resolve(1), true],
    // biome-ignore lint/suspicious/noThenProperty: a thenable is what is tested
    ['any thenable', { then: () => {} }, true],
    ['a value', 1, false],
    ['an object without then', { value: 1 }, false],
    ['undefined', undefined, false],
    ['null', null, false],
  ])('%s: %s', (_name, value, expected) => {
    expect(isPromiseLike(value)).toBe(expected);
  });
});
