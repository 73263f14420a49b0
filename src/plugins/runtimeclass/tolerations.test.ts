// Upstream pkg/util/tolerations/tolerations_test.go: TestIsSuperset and TestMergeTolerations,
// every row, and TestFuzzed's MergeTolerations property with a seeded generator.
// Skipped: TestVerifyAgainstWhitelist and the fuzzed VerifyAgainstWhitelist half — the whitelist
// check belongs to the PodTolerationRestriction plugin, which RuntimeClass does not use.
import { describe, expect, it } from 'vitest';
import type { Toleration } from '../../api/core.ts';
import { isSuperset, mergeTolerations, tolerationsEqual } from './tolerations.ts';

const named: Record<string, Toleration> = {
  all: { operator: 'Exists' },
  'all-nosched': { operator: 'Exists', effect: 'NoSchedule' },
  'all-noexec': { operator: 'Exists', effect: 'NoExecute' },
  foo: { key: 'foo', operator: 'Exists' },
  'foo-bar': { key: 'foo', operator: 'Equal', value: 'bar' },
  'foo-nosched': { key: 'foo', operator: 'Exists', effect: 'NoSchedule' },
  'foo-bar-nosched': { key: 'foo', operator: 'Equal', value: 'bar', effect: 'NoSchedule' },
  'foo-baz-nosched': { key: 'foo', operator: 'Equal', value: 'baz', effect: 'NoSchedule' },
  'faz-nosched': { key: 'faz', operator: 'Exists', effect: 'NoSchedule' },
  'faz-baz-nosched': { key: 'faz', operator: 'Equal', value: 'baz', effect: 'NoSchedule' },
  'foo-prefnosched': { key: 'foo', operator: 'Exists', effect: 'PreferNoSchedule' },
  'foo-noexec': { key: 'foo', operator: 'Exists', effect: 'NoExecute' },
  'foo-bar-noexec': { key: 'foo', operator: 'Equal', value: 'bar', effect: 'NoExecute' },
  'foo-noexec-10': { key: 'foo', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 10 },
  'foo-noexec-0': { key: 'foo', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 0 },
  'foo-bar-noexec-10': { key: 'foo', operator: 'Equal', value: 'bar', effect: 'NoExecute', tolerationSeconds: 10 },
};

// Upstream's row "foo-prenosched" is a typo for a name not in the map: Go's map read yields the
// zero Toleration, which we reproduce with {}.
const toleration = (name: string): Toleration => named[name] ?? {};
const tolerations = (names: string[]): Toleration[] => names.map(toleration);

describe('isSuperset (upstream TestIsSuperset)', () => {
  it.each([
    { toleration: 'all', ss: ['all-nosched', 'all-noexec', 'foo', 'foo-bar', 'foo-nosched', 'foo-bar-nosched', 'foo-baz-nosched', 'faz-nosched', 'faz-baz-nosched', 'foo-prefnosched', 'foo-noexec', 'foo-bar-noexec', 'foo-noexec-10', 'foo-noexec-0', 'foo-bar-noexec-10'] },
    { toleration: 'all-nosched', ss: ['foo-nosched', 'foo-bar-nosched', 'foo-baz-nosched', 'faz-nosched', 'faz-baz-nosched'] },
    { toleration: 'all-noexec', ss: ['foo-noexec', 'foo-bar-noexec', 'foo-noexec-10', 'foo-noexec-0', 'foo-bar-noexec-10'] },
    { toleration: 'foo', ss: ['foo-bar', 'foo-nosched', 'foo-bar-nosched', 'foo-baz-nosched', 'foo-prefnosched', 'foo-noexec', 'foo-bar-noexec', 'foo-noexec-10', 'foo-noexec-0', 'foo-bar-noexec-10'] },
    { toleration: 'foo-bar', ss: ['foo-bar-nosched', 'foo-bar-noexec', 'foo-bar-noexec-10'] },
    { toleration: 'foo-nosched', ss: ['foo-bar-nosched', 'foo-baz-nosched'] },
    { toleration: 'foo-bar-nosched', ss: [] },
    { toleration: 'faz-nosched', ss: ['faz-baz-nosched'] },
    { toleration: 'faz-baz-nosched', ss: [] },
    { toleration: 'foo-prenosched', ss: [] },
    { toleration: 'foo-noexec', ss: ['foo-noexec', 'foo-bar-noexec', 'foo-noexec-10', 'foo-noexec-0', 'foo-bar-noexec-10'] },
    { toleration: 'foo-bar-noexec', ss: ['foo-bar-noexec-10'] },
    { toleration: 'foo-noexec-10', ss: ['foo-noexec-0', 'foo-bar-noexec-10'] },
    { toleration: 'foo-noexec-0', ss: [] },
    { toleration: 'foo-bar-noexec-10', ss: [] },
  ])('$toleration', ({ toleration: broad, ss }) => {
    for (const name of Object.keys(named)) {
      const expected = name === broad || ss.includes(name);
      expect(isSuperset(toleration(broad), toleration(name)), `${broad} ⊇ ${name}`).toBe(expected);
    }
  });
});

describe('mergeTolerations (upstream TestMergeTolerations)', () => {
  it.each([
    { name: 'disjoint', a: ['foo-bar-nosched', 'faz-baz-nosched', 'foo-noexec-10'], b: ['foo-prefnosched', 'foo-baz-nosched'], expected: ['foo-bar-nosched', 'faz-baz-nosched', 'foo-noexec-10', 'foo-prefnosched', 'foo-baz-nosched'] },
    { name: 'duplicate', a: ['foo-bar-nosched', 'faz-baz-nosched', 'foo-noexec-10'], b: ['foo-bar-nosched', 'faz-baz-nosched', 'foo-noexec-10'], expected: ['foo-bar-nosched', 'faz-baz-nosched', 'foo-noexec-10'] },
    { name: 'merge redundant', a: ['foo-bar-nosched', 'foo-baz-nosched'], b: ['foo-nosched', 'faz-baz-nosched'], expected: ['foo-nosched', 'faz-baz-nosched'] },
    { name: 'merge all', a: ['foo-bar-nosched', 'foo-baz-nosched', 'foo-noexec-10'], b: ['all'], expected: ['all'] },
    { name: 'merge into all', a: ['all'], b: ['foo-bar-nosched', 'foo-baz-nosched', 'foo-noexec-10'], expected: ['all'] },
  ])('$name', ({ a, b, expected }) => {
    expect(mergeTolerations(tolerations(a), tolerations(b))).toEqual(tolerations(expected));
  });

  it('treats absent and empty fields alike, as Go zero values do', () => {
    expect(mergeTolerations([{ key: 'k', operator: 'Equal', value: '' }], [{ key: 'k', operator: 'Equal' }])).toEqual([{ key: 'k', operator: 'Equal', value: '' }]);
  });

  // Upstream TestFuzzed/MergeTolerations: every input toleration is covered by the merged list.
  it('covers every input toleration (fuzzed, fixed seed)', () => {
    let state = 1234;
    const next = () => {
      state = (state * 1103515245 + 12345) % 2 ** 31;
      return state / 2 ** 31;
    };
    const intBelow = (n: number) => Math.floor(next() * n);
    const effects = ['', 'NoExecute', 'NoSchedule', 'PreferNoSchedule'];
    const generate = (): Toleration => {
      const effect = effects[intBelow(effects.length)]!;
      if (next() < 0.01) return { operator: 'Exists' };
      const generated: Toleration = { key: 'a'.repeat(intBelow(6) + 1), effect };
      if (next() < 0.3) generated.operator = 'Exists';
      else Object.assign(generated, { operator: 'Equal', value: 'b'.repeat(intBelow(6) + 1) });
      if (effect === 'NoExecute' && next() < 0.5) generated.tolerationSeconds = intBelow(10);
      return generated;
    };
    const generateList = () => Array.from({ length: intBelow(10) }, generate);
    for (let i = 0; i < 1000; i++) {
      const a = generateList();
      const b = generateList();
      const merged = mergeTolerations(a, b);
      for (const t of [...a, ...b]) expect(merged.some((kept) => isSuperset(kept, t)), JSON.stringify({ a, b, merged })).toBe(true);
    }
  });

  // The merge looks up covers by group instead of comparing every pair; it must give upstream's
  // pairwise answer exactly, order included, on lists dense with near-misses: few keys and values,
  // every operator (odd ones too), effects and tolerationSeconds, repeats and absent fields.
  it('gives exactly the answer of upstream\'s pairwise algorithm (random lists, fixed seed)', () => {
    let state = 42;
    const intBelow = (n: number) => {
      state = (state * 1103515245 + 12345) % 2 ** 31;
      return Math.floor((state / 2 ** 31) * n);
    };
    const pick = <T,>(items: readonly T[]): T => items[intBelow(items.length)]!;
    const generate = (): Toleration => {
      const t: Toleration = {};
      const key = pick([undefined, '', 'a', 'b']);
      if (key !== undefined) t.key = key;
      const operator = pick([undefined, '', 'Equal', 'Exists', 'Exists', 'Equal', 'Odd']);
      if (operator !== undefined) t.operator = operator;
      const value = pick([undefined, '', 'x', 'y']);
      if (value !== undefined) t.value = value;
      const effect = pick([undefined, '', 'NoExecute', 'NoExecute', 'NoSchedule']);
      if (effect !== undefined) t.effect = effect;
      const seconds = pick([undefined, null, 0, 5, 10]);
      // null arrives in JSON as a Go nil pointer would.
      if (seconds !== undefined) t.tolerationSeconds = seconds as number;
      return t;
    };
    for (let i = 0; i < 3000; i++) {
      const a = Array.from({ length: intBelow(9) }, generate);
      const b = Array.from({ length: intBelow(9) }, generate);
      expect(mergeTolerations(a, b), JSON.stringify({ a, b })).toEqual(pairwiseMerge(a, b));
    }
  });

  it('merges tens of thousands of distinct tolerations (linear, not pairwise)', () => {
    const many = Array.from({ length: 40_000 }, (_, i) => ({ key: `k${i % 7}`, operator: 'Equal', value: `v${i}`, effect: 'NoSchedule' }));
    const merged = mergeTolerations(many, [{ key: 'k3', operator: 'Exists', effect: 'NoSchedule' }]);
    expect(merged).toHaveLength(40_000 - Math.ceil((40_000 - 3) / 7) + 1);
    expect(merged.at(-1)).toEqual({ key: 'k3', operator: 'Exists', effect: 'NoSchedule' });
  });
});

/** Upstream MergeTolerations as written: every toleration against every kept one and every later one. */
function pairwiseMerge(first: readonly Toleration[], second: readonly Toleration[]): Toleration[] {
  const all = [...first, ...second];
  const merged: Toleration[] = [];
  all.forEach((t, i) => {
    if (merged.some((kept) => isSuperset(kept, t))) return;
    if (all.slice(i + 1).some((later) => !tolerationsEqual(t, later) && isSuperset(later, t))) return;
    merged.push(t);
  });
  return merged;
}
