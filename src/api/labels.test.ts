// apimachinery pkg/labels/labels_test.go TestLabelSelectorParse (ConvertSelectorToLabelsMap) and
// TestLabelConflict, every row; then the exact error messages PodNodeSelector passes on.
import { describe, expect, it } from 'vitest';
import { convertSelectorToLabelsMap, labelsConflict, SelectorError } from './labels.ts';

describe('TestLabelSelectorParse', () => {
  it.each([
    { selector: '', labels: {}, valid: true },
    { selector: 'x=a', labels: { x: 'a' }, valid: true },
    { selector: 'x=a,y=b,z=c', labels: { x: 'a', y: 'b', z: 'c' }, valid: true },
    { selector: ' x = a , y = b , z = c ', labels: { x: 'a', y: 'b', z: 'c' }, valid: true },
    { selector: 'color=green,env=test,service=front', labels: { color: 'green', env: 'test', service: 'front' }, valid: true },
    { selector: 'color=green, env=test, service=front', labels: { color: 'green', env: 'test', service: 'front' }, valid: true },
    { selector: ',', labels: {}, valid: false },
    { selector: 'x', labels: {}, valid: false },
    { selector: 'x,y', labels: {}, valid: false },
    { selector: 'x=$y', labels: {}, valid: false },
    { selector: 'x!=y', labels: {}, valid: false },
    { selector: 'x==y', labels: {}, valid: false },
    { selector: 'x=a||y=b', labels: {}, valid: false },
    { selector: 'x in (y)', labels: {}, valid: false },
    { selector: 'x notin (y)', labels: {}, valid: false },
    { selector: 'x y', labels: {}, valid: false },
  ])('"$selector"', ({ selector, labels, valid }) => {
    if (valid) expect(Object.fromEntries(convertSelectorToLabelsMap(selector))).toEqual(labels);
    else expect(() => convertSelectorToLabelsMap(selector)).toThrow(SelectorError);
  });
});

describe('TestLabelConflict', () => {
  it.each([
    { labels1: {}, labels2: {}, conflict: false },
    { labels1: { env: 'test' }, labels2: { infra: 'true' }, conflict: false },
    { labels1: { env: 'test' }, labels2: { infra: 'true', env: 'test' }, conflict: false },
    { labels1: { env: 'test' }, labels2: { env: 'dev' }, conflict: true },
    { labels1: { env: 'test', infra: 'false' }, labels2: { infra: 'true', color: 'blue' }, conflict: true },
  ])('$labels1 vs $labels2 → $conflict', ({ labels1, labels2, conflict }) => {
    expect(labelsConflict(new Map(Object.entries(labels1)), new Map(Object.entries(labels2)))).toBe(conflict);
    expect(labelsConflict(new Map(Object.entries(labels2)), new Map(Object.entries(labels1)))).toBe(conflict);
  });
});

describe('error messages', () => {
  it.each([
    ['a=b=c', 'invalid selector: [a b c]'],
    ['abc', 'invalid selector: [abc]'],
    ['a=b,', 'invalid selector: []'],
    [
      'x=$y',
      `[x]: Invalid value: "$y": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
    ],
    [
      'bad key=v',
      `<nil>: Invalid value: "bad key": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
    ],
    [
      'a/b/c=v',
      `<nil>: Invalid value: "a/b/c": a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ],
    [
      '=v',
      `<nil>: Invalid value: "": name part must be non-empty; name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
    ],
  ])('"%s"', (selector, message) => {
    expect(() => convertSelectorToLabelsMap(selector)).toThrow(message);
  });

  it('trims Go white space only (not U+FEFF) and keeps the last of repeated keys', () => {
    expect(Object.fromEntries(convertSelectorToLabelsMap('\u0085a\u3000=\tb , a=c'))).toEqual({ a: 'c' });
    expect(() => convertSelectorToLabelsMap('\ufeffa=b')).toThrow(SelectorError);
  });

  it('stays linear on a selector of 200,000 spaces', () => {
    expect(Object.fromEntries(convertSelectorToLabelsMap(`${' '.repeat(100_000)}a=b${' '.repeat(100_000)}`))).toEqual({ a: 'b' });
  });
});
