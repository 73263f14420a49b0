import { describe, expect, it } from 'vitest';
import { cutToRunes, runeCount, withoutControlCharacters } from './limits.ts';

describe('warning text', () => {
  it.each([
    ['plain', 'plain'],
    ['a\nb\tc', 'a\\u000ab\\u0009c'],
    ['del\u007f c1\u0085\u009f', 'del\\u007f c1\\u0085\\u009f'],
    ['lone \ud800 surrogate', 'lone \ufffd surrogate'],
    ['pair 😀 kept', 'pair 😀 kept'],
  ])('%j has no control character left', (input, expected) => {
    expect(withoutControlCharacters(input)).toBe(expected);
  });

  it('counts and cuts in runes, as kube-apiserver does', () => {
    expect(runeCount('😀😀')).toBe(2);
    expect(cutToRunes('😀'.repeat(300), 256)).toBe(`${'😀'.repeat(255)}…`);
    expect(runeCount(cutToRunes('x'.repeat(1000), 256))).toBe(256);
    expect(cutToRunes('short', 256)).toBe('short');
  });
});
