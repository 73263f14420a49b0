import { describe, expect, it } from 'vitest';
import { cloneJson } from './clone-json.ts';

describe('cloneJson', () => {
  it('copies deeply: changing the copy leaves the original alone', () => {
    const original = { a: [1, { b: 'x' }], c: { d: null, e: true, f: 1.5 } };
    const copy = cloneJson(original);
    expect(copy).toEqual(original);
    (copy.a[1] as { b: string }).b = 'y';
    copy.c.e = false;
    expect(original).toEqual({ a: [1, { b: 'x' }], c: { d: null, e: true, f: 1.5 } });
  });

  it('keeps a "__proto__" key as data, as JSON.parse does, without touching the prototype', () => {
    const parsed = JSON.parse('{"__proto__": {"polluted": true}, "x": 1}');
    const copy = cloneJson(parsed);
    expect(Object.keys(copy)).toContain('x');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
  });

  it('passes primitives through', () => {
    expect(cloneJson('s')).toBe('s');
    expect(cloneJson(null)).toBe(null);
    expect(cloneJson(3)).toBe(3);
  });
});
