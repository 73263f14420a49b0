import { describe, expect, it } from 'vitest';
import { type JsonShape, jsonShape, parsedBytes } from './json-weight.ts';

const shape = (text: string) => jsonShape(Buffer.from(text));

describe('jsonShape', () => {
  it('counts objects, arrays, values, members and strings, and the deepest nesting', () => {
    expect(shape('{"a":[1,2,{"b":"c"}],"d":{}}')).toEqual({
      bytes: 28,
      objects: 3,
      arrays: 1,
      separators: 3,
      members: 3,
      strings: 4,
      depth: 3,
    });
  });

  it('reads nothing inside strings as structure, escaped quotes and backslashes included', () => {
    expect(shape('["{[,:]}", "a\\"{,", "\\\\", "}"]')).toMatchObject({
      objects: 0,
      arrays: 1,
      separators: 3,
      members: 0,
      strings: 4,
      depth: 1,
    });
  });

  it('counts what JSON.parse finds, for random values whose strings hold quotes and runs of backslashes', () => {
    let state = 5;
    const intBelow = (n: number) => {
      state = (state * 1103515245 + 12345) % 2 ** 31;
      return Math.floor((state / 2 ** 31) * n);
    };
    const pieces = ['a', '"', '\\', '\\\\', '{', ']', ',', ':', 'é', '\n', 'x'.repeat(300)];
    const text = () => Array.from({ length: intBelow(6) }, () => pieces[intBelow(pieces.length)]).join('');
    const value = (depth: number): unknown => {
      const kind = intBelow(depth > 3 ? 3 : 5);
      if (kind === 0) return text();
      if (kind === 1) return intBelow(100);
      if (kind === 2) return null;
      if (kind === 3) return Array.from({ length: intBelow(4) }, () => value(depth + 1));
      return Object.fromEntries(Array.from({ length: intBelow(4) }, () => [text(), value(depth + 1)]));
    };
    /** The counts, from the parsed value. */
    const expected = (v: unknown, depth = 0): Omit<JsonShape, 'bytes'> => {
      const total = { objects: 0, arrays: 0, separators: 0, members: 0, strings: typeof v === 'string' ? 1 : 0, depth };
      if (typeof v !== 'object' || v === null) return total;
      const entries = Array.isArray(v) ? v.map((item) => [undefined, item] as const) : Object.entries(v);
      if (Array.isArray(v)) total.arrays++;
      else total.objects++;
      total.depth = depth + 1;
      total.separators += Math.max(0, entries.length - 1);
      for (const [key, item] of entries) {
        if (key !== undefined) {
          total.members++;
          total.strings++;
        }
        const inner = expected(item, depth + 1);
        for (const k of ['objects', 'arrays', 'separators', 'members', 'strings'] as const) total[k] += inner[k];
        total.depth = Math.max(total.depth, inner.depth);
      }
      return total;
    };
    for (let i = 0; i < 500; i++) {
      const v = value(0);
      const json = JSON.stringify(v);
      expect(shape(json), json).toEqual({ bytes: Buffer.byteLength(json), ...expected(JSON.parse(json)) });
    }
  });

  it('finds nesting far deeper than any API server would send', () => {
    expect(shape('['.repeat(20_000) + ']'.repeat(20_000)).depth).toBe(20_000);
  });

  it('counts a malformed body as far as it goes', () => {
    expect(shape('{"a": "unterminated')).toMatchObject({ objects: 1, strings: 2, depth: 1 });
  });
});

describe('parsedBytes', () => {
  it('weighs a million empty objects far above the same bytes of one string', () => {
    const objects = `[${'{},'.repeat(1_000_000)}{}]`;
    const string = JSON.stringify('x'.repeat(objects.length - 2));
    expect(parsedBytes(shape(objects))).toBeGreaterThan(60 * 1_000_000);
    expect(parsedBytes(shape(string))).toBeLessThan(3 * string.length);
  });
});
