import { describe, expect, it } from 'vitest';
import { goQuote } from './go-format.ts';

describe('goQuote', () => {
  // The fast path for plain ASCII must quote exactly as the general path (JSON's encoder) does.
  it.each([
    '',
    'web',
    'IfNotPresent',
    'a b',
    "it's",
    'say "hi"',
    'back\\slash',
    'tab\there',
    'new\nline',
    '\u0000',
    '\u007f',
    'DEL\u007f',
    'ünïcode',
    'emoji 🙂',
    '\u2028',
    '~!#$%&()*+,-./:;<=>?@[]^_`{|}',
  ])('%j', (value) => {
    expect(goQuote(value)).toBe(JSON.stringify(value));
  });
});
