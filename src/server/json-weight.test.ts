import { describe, expect, it } from 'vitest';
import { jsonShape, parsedBytes } from './json-weight.ts';

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
