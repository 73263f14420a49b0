// Quantity comparison by value, the part of apimachinery's semantic equality overhead checks use.
import { describe, expect, it } from 'vitest';
import { quantitiesEqual, quantityNanos, resourceListsEqual } from './quantity.ts';

describe('quantityNanos', () => {
  it.each([
    ['0', 0n],
    ['1', 1_000_000_000n],
    ['100m', 100_000_000n],
    ['0.1', 100_000_000n],
    ['.5', 500_000_000n],
    ['1.', 1_000_000_000n],
    ['+2', 2_000_000_000n],
    ['-2', -2_000_000_000n],
    ['1n', 1n],
    ['1u', 1_000n],
    ['1k', 1_000_000_000_000n],
    ['1M', 10n ** 15n],
    ['10G', 10n ** 19n],
    ['1T', 10n ** 21n],
    ['1P', 10n ** 24n],
    ['1E', 10n ** 27n],
    ['1Ki', 1024n * 10n ** 9n],
    ['1Gi', 2n ** 30n * 10n ** 9n],
    ['1.5Gi', 3n * 2n ** 29n * 10n ** 9n],
    ['1Ei', 2n ** 60n * 10n ** 9n],
    ['1e3', 10n ** 12n],
    ['1E3', 10n ** 12n],
    ['5e-3', 5_000_000n],
    ['0.1n', 1n], // finer than a nano: rounded up
    ['-0.1n', -1n], // away from zero
    [1, 1_000_000_000n],
    [0.5, 500_000_000n],
  ])('%s', (text, nanos) => {
    expect(quantityNanos(text)).toBe(nanos);
  });

  it.each(['', 'abc', '1Q', '1 Gi', 'Gi', '1.2.3', '--1', '1e', '1ki', null, {}, Number.NaN])('rejects %j', (text) => {
    expect(quantityNanos(text)).toBeUndefined();
  });
});

describe('equality', () => {
  it('compares values, not spellings', () => {
    expect(quantitiesEqual('1', '1000m')).toBe(true);
    expect(quantitiesEqual('1Ki', '1024')).toBe(true);
    expect(quantitiesEqual('1k', '1Ki')).toBe(false);
    expect(quantitiesEqual('junk', 'junk')).toBe(true);
    expect(quantitiesEqual('junk', '1')).toBe(false);
  });

  it('compares resource lists by names and values; nil and empty are equal', () => {
    expect(resourceListsEqual({ cpu: '1', memory: '1Gi' }, { memory: '1024Mi', cpu: '1000m' })).toBe(true);
    expect(resourceListsEqual({ cpu: '1' }, { cpu: '1', memory: '1' })).toBe(false);
    expect(resourceListsEqual({ cpu: '1' }, { memory: '1' })).toBe(false);
    expect(resourceListsEqual(undefined, {})).toBe(true);
    expect(resourceListsEqual(undefined, { cpu: '1' })).toBe(false);
  });
});
