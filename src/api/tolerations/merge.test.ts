// Upstream pkg/util/tolerations/tolerations_test.go: TestIsSuperset, TestVerifyAgainstWhitelist,
// TestMergeTolerations and TestFuzzed, every row; then the indexed merge checked against upstream's
// pairwise algorithm on random lists, invalid tolerations included (a webhook sees pods before
// validation does), and a 40,000-toleration pod to show it stays linear.
import { describe, expect, it } from 'vitest';
import type { Toleration } from '../core.ts';
import { mergeTolerations, verifyAgainstWhitelist } from './merge.ts';
import { isSuperset } from './superset.ts';
import { fieldsOf, identityOf } from './toleration.ts';

const tolerations: Record<string, Toleration> = {
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
const named = (names: string[]) => names.map((name) => tolerations[name]!);

/** Upstream's MergeTolerations as written: the pairwise definition the indexed one must match. */
function pairwiseMerge(first: Toleration[], second: Toleration[]): Toleration[] {
  const all = [...first, ...second];
  const merged: Toleration[] = [];
  all.forEach((t, i) => {
    const f = fieldsOf(t);
    if (merged.some((kept) => isSuperset(fieldsOf(kept), f))) return;
    const laterCovers = all.slice(i + 1).some((t2) => identityOf(fieldsOf(t2)) !== identityOf(f) && isSuperset(fieldsOf(t2), f));
    if (!laterCovers) merged.push(t);
  });
  return merged;
}

function pairwiseWhitelist(input: Toleration[], whitelist: Toleration[]): boolean {
  if (whitelist.length === 0 || input.length === 0) return true;
  return input.every((t) => whitelist.some((w) => isSuperset(fieldsOf(w), fieldsOf(t))));
}

/** A small seeded generator (mulberry32), so random rows are the same on every run. */
function random(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    float: next,
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]!,
  };
}

describe('isSuperset (TestIsSuperset)', () => {
  const rows: Array<[string, string[]]> = [
    [
      'all',
      [
        'all-nosched',
        'all-noexec',
        'foo',
        'foo-bar',
        'foo-nosched',
        'foo-bar-nosched',
        'foo-baz-nosched',
        'faz-nosched',
        'faz-baz-nosched',
        'foo-prefnosched',
        'foo-noexec',
        'foo-bar-noexec',
        'foo-noexec-10',
        'foo-noexec-0',
        'foo-bar-noexec-10',
      ],
    ],
    ['all-nosched', ['foo-nosched', 'foo-bar-nosched', 'foo-baz-nosched', 'faz-nosched', 'faz-baz-nosched']],
    ['all-noexec', ['foo-noexec', 'foo-bar-noexec', 'foo-noexec-10', 'foo-noexec-0', 'foo-bar-noexec-10']],
    [
      'foo',
      [
        'foo-bar',
        'foo-nosched',
        'foo-bar-nosched',
        'foo-baz-nosched',
        'foo-prefnosched',
        'foo-noexec',
        'foo-bar-noexec',
        'foo-noexec-10',
        'foo-noexec-0',
        'foo-bar-noexec-10',
      ],
    ],
    ['foo-bar', ['foo-bar-nosched', 'foo-bar-noexec', 'foo-bar-noexec-10']],
    ['foo-nosched', ['foo-bar-nosched', 'foo-baz-nosched']],
    ['foo-bar-nosched', []],
    ['faz-nosched', ['faz-baz-nosched']],
    ['faz-baz-nosched', []],
    // Upstream's row misspells its name ("foo-prenosched"), so it looks up the zero toleration.
    ['foo-prenosched', []],
    ['foo-noexec', ['foo-noexec', 'foo-bar-noexec', 'foo-noexec-10', 'foo-noexec-0', 'foo-bar-noexec-10']],
    ['foo-bar-noexec', ['foo-bar-noexec-10']],
    ['foo-noexec-10', ['foo-noexec-0', 'foo-bar-noexec-10']],
    ['foo-noexec-0', []],
    ['foo-bar-noexec-10', []],
  ];
  it.each(rows)('%s', (name, subsets) => {
    const broad = fieldsOf(tolerations[name] ?? {});
    for (const [other, toleration] of Object.entries(tolerations)) {
      const expected = other === name || subsets.includes(other);
      expect(isSuperset(broad, fieldsOf(toleration)), `${name} ⊇ ${other}`).toBe(expected);
    }
  });
});

describe('verifyAgainstWhitelist (TestVerifyAgainstWhitelist)', () => {
  it.each([
    {
      name: 'equal input and whitelist',
      input: ['foo-bar-nosched', 'foo-baz-nosched'],
      whitelist: ['foo-bar-nosched', 'foo-baz-nosched'],
      expected: true,
    },
    {
      name: 'duplicate input allowed',
      input: ['foo-bar-nosched', 'foo-bar-nosched'],
      whitelist: ['foo-bar-nosched', 'foo-baz-nosched'],
      expected: true,
    },
    { name: 'allow all', input: ['foo-bar-nosched', 'foo-bar-nosched'], whitelist: ['all'], expected: true },
    { name: 'duplicate input forbidden', input: ['foo-bar-nosched', 'foo-bar-nosched'], whitelist: ['foo-baz-nosched'], expected: false },
    { name: 'value mismatch', input: ['foo-bar-nosched', 'foo-baz-nosched'], whitelist: ['foo-baz-nosched'], expected: false },
    { name: 'input does not exist in whitelist', input: ['foo-bar-nosched'], whitelist: ['foo-baz-nosched'], expected: false },
    { name: 'disjoint sets', input: ['foo-bar'], whitelist: ['foo-nosched'], expected: false },
    { name: 'empty whitelist', input: ['foo-bar'], whitelist: [], expected: true },
    { name: 'empty input', input: [], whitelist: ['foo-bar'], expected: true },
  ])('$name', ({ input, whitelist, expected }) => {
    expect(verifyAgainstWhitelist(named(input), named(whitelist))).toBe(expected);
  });
});

describe('mergeTolerations (TestMergeTolerations)', () => {
  it.each([
    {
      name: 'disjoint',
      a: ['foo-bar-nosched', 'faz-baz-nosched', 'foo-noexec-10'],
      b: ['foo-prefnosched', 'foo-baz-nosched'],
      expected: ['foo-bar-nosched', 'faz-baz-nosched', 'foo-noexec-10', 'foo-prefnosched', 'foo-baz-nosched'],
    },
    {
      name: 'duplicate',
      a: ['foo-bar-nosched', 'faz-baz-nosched', 'foo-noexec-10'],
      b: ['foo-bar-nosched', 'faz-baz-nosched', 'foo-noexec-10'],
      expected: ['foo-bar-nosched', 'faz-baz-nosched', 'foo-noexec-10'],
    },
    {
      name: 'merge redundant',
      a: ['foo-bar-nosched', 'foo-baz-nosched'],
      b: ['foo-nosched', 'faz-baz-nosched'],
      expected: ['foo-nosched', 'faz-baz-nosched'],
    },
    { name: 'merge all', a: ['foo-bar-nosched', 'foo-baz-nosched', 'foo-noexec-10'], b: ['all'], expected: ['all'] },
    { name: 'merge into all', a: ['all'], b: ['foo-bar-nosched', 'foo-baz-nosched', 'foo-noexec-10'], expected: ['all'] },
  ])('$name', ({ a, b, expected }) => {
    expect(mergeTolerations(named(a), named(b))).toEqual(named(expected));
  });

  it('keeps the given objects (a patch then touches only what changed)', () => {
    const first = [{ key: 'a', operator: 'Exists' }];
    const merged = mergeTolerations(first, [{ key: 'b', operator: 'Exists' }]);
    expect(merged[0]).toBe(first[0]);
  });
});

describe('TestFuzzed (seeded, 1000 iterations each)', () => {
  const effects = ['', 'NoExecute', 'NoSchedule', 'PreferNoSchedule'];
  const rng = random(1234);
  const genToleration = (): Toleration => {
    const effect = rng.pick(effects);
    if (rng.float() < 0.01) return { ...tolerations.all! };
    const t: Toleration = { key: 'a'.repeat(rng.int(6) + 1) };
    if (effect !== '') t.effect = effect;
    if (rng.float() < 0.3) t.operator = 'Exists';
    else {
      t.operator = 'Equal';
      t.value = 'b'.repeat(rng.int(6) + 1);
    }
    if (effect === 'NoExecute' && rng.float() < 0.5) t.tolerationSeconds = rng.int(10);
    return t;
  };
  const genTolerations = () => Array.from({ length: rng.int(10) }, genToleration);
  const isContained = (t: Toleration, set: Toleration[]) => set.some((ss) => isSuperset(fieldsOf(ss), fieldsOf(t)));

  it('VerifyAgainstWhitelist answers exactly whether every input is contained', () => {
    for (let i = 0; i < 1000; i++) {
      const input = genTolerations();
      const whitelist = [...genTolerations(), genToleration()];
      expect(verifyAgainstWhitelist(input, whitelist)).toBe(input.every((t) => isContained(t, whitelist)));
    }
  });

  it('MergeTolerations keeps a superset of every input', () => {
    for (let i = 0; i < 1000; i++) {
      const a = genTolerations();
      const b = genTolerations();
      const result = mergeTolerations(a, b);
      for (const t of [...a, ...b]) expect(isContained(t, result)).toBe(true);
    }
  });
});

describe('the indexed algorithm equals upstream pairwise one', () => {
  // Small value spaces so that equal, overlapping and covering tolerations are frequent; invalid
  // ones (unknown operators, Exists with a value, tolerationSeconds off NoExecute) included.
  const rng = random(20260723);
  const gen = (): Toleration => {
    const t: Toleration = {};
    const key = rng.pick(['', 'a', 'b', undefined]);
    if (key !== undefined) t.key = key;
    const operator = rng.pick(['Exists', 'Equal', '', 'Lt', undefined]);
    if (operator !== undefined) t.operator = operator;
    const value = rng.pick(['', 'x', 'y', undefined]);
    if (value !== undefined) t.value = value;
    const effect = rng.pick(['', 'NoExecute', 'NoSchedule', 'PreferNoSchedule', undefined]);
    if (effect !== undefined) t.effect = effect;
    if (rng.float() < 0.4) t.tolerationSeconds = rng.int(4);
    return t;
  };

  it('on 5,000 random pairs of lists, merge and whitelist', () => {
    for (let i = 0; i < 5_000; i++) {
      const a = Array.from({ length: rng.int(7) }, gen);
      const b = Array.from({ length: rng.int(7) }, gen);
      expect(mergeTolerations(a, b)).toEqual(pairwiseMerge(a, b));
      expect(verifyAgainstWhitelist(a, b)).toBe(pairwiseWhitelist(a, b));
    }
  });

  it('merges a pod with 40,000 tolerations and whitelists it in linear time', () => {
    const many = Array.from({ length: 40_000 }, (_, i) => ({
      key: `k${i % 20_000}`,
      operator: 'Equal',
      value: `v${i}`,
      effect: 'NoSchedule',
    }));
    const defaults = [{ key: 'k1', operator: 'Exists', effect: 'NoSchedule' }];
    const merged = mergeTolerations(many, defaults);
    // k1's two Equal tolerations are covered by the later Exists; every other one stays.
    expect(merged).toHaveLength(40_000 - 2 + 1);
    expect(merged.at(-1)).toEqual(defaults[0]);
    expect(verifyAgainstWhitelist(merged, [{ operator: 'Exists', effect: 'NoSchedule' }])).toBe(true);
    expect(verifyAgainstWhitelist(merged, [{ key: 'k1', operator: 'Exists' }])).toBe(false);
  });
});
