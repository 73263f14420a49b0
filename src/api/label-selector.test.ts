import { describe, expect, it } from 'vitest';
import { decodeLabelSelector, formatLabelSelector, type LabelSelector, labelSelectorMatches, selectsEverything } from './label-selector.ts';

function decoded(value: unknown): LabelSelector {
  const selector = decodeLabelSelector(value);
  if ('detail' in selector) throw new Error(`${selector.field}: ${selector.detail}`);
  return selector;
}

describe('labelSelectorMatches', () => {
  const labels = { team: 'platform', env: 'prod' };
  it.each([
    ['matchLabels, all present', { matchLabels: { team: 'platform', env: 'prod' } }, true],
    ['matchLabels, one value differs', { matchLabels: { team: 'platform', env: 'dev' } }, false],
    ['matchLabels, one key absent', { matchLabels: { tier: 'web' } }, false],
    ['In, value listed', { matchExpressions: [{ key: 'env', operator: 'In', values: ['dev', 'prod'] }] }, true],
    ['In, value not listed', { matchExpressions: [{ key: 'env', operator: 'In', values: ['dev'] }] }, false],
    ['In, key absent', { matchExpressions: [{ key: 'tier', operator: 'In', values: ['web'] }] }, false],
    ['NotIn, value listed', { matchExpressions: [{ key: 'env', operator: 'NotIn', values: ['prod'] }] }, false],
    ['NotIn, value not listed', { matchExpressions: [{ key: 'env', operator: 'NotIn', values: ['dev'] }] }, true],
    ['NotIn, key absent', { matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['web'] }] }, true],
    ['Exists, present', { matchExpressions: [{ key: 'team', operator: 'Exists' }] }, true],
    ['Exists, absent', { matchExpressions: [{ key: 'tier', operator: 'Exists' }] }, false],
    ['DoesNotExist, present', { matchExpressions: [{ key: 'team', operator: 'DoesNotExist' }] }, false],
    ['DoesNotExist, absent', { matchExpressions: [{ key: 'tier', operator: 'DoesNotExist', values: [] }] }, true],
    [
      'every part must hold (matchLabels and an expression that fails)',
      { matchLabels: { team: 'platform' }, matchExpressions: [{ key: 'env', operator: 'In', values: ['dev'] }] },
      false,
    ],
    [
      'every part holds',
      { matchLabels: { team: 'platform' }, matchExpressions: [{ key: 'env', operator: 'NotIn', values: ['dev'] }] },
      true,
    ],
  ])('%s', (_, selector, expected) => {
    expect(labelSelectorMatches(decoded(selector), labels)).toBe(expected);
  });

  it('does not read inherited properties as labels', () => {
    expect(labelSelectorMatches(decoded({ matchExpressions: [{ key: 'constructor', operator: 'Exists' }] }), {})).toBe(false);
  });
});

describe('decodeLabelSelector', () => {
  it.each([
    ['not an object', 'team=a', '', 'expected a label selector (matchLabels, matchExpressions)'],
    ['unknown field', { matchLabel: {} }, 'matchLabel', 'unknown field'],
    ['matchLabels not a map', { matchLabels: ['a'] }, 'matchLabels', 'expected a map of label keys to values'],
    ['bad label key', { matchLabels: { 'a b': 'x' } }, 'matchLabels["a b"]', 'Invalid value: "a b": name part must consist of'],
    ['label value not a string', { matchLabels: { a: 1 } }, 'matchLabels["a"]', 'expected a string'],
    ['bad label value', { matchLabels: { a: '-x' } }, 'matchLabels["a"]', 'Invalid value: "-x": a valid label must be'],
    ['matchExpressions not a list', { matchExpressions: {} }, 'matchExpressions', 'expected a list'],
    ['requirement not an object', { matchExpressions: ['a'] }, 'matchExpressions[0]', 'expected a requirement'],
    [
      'requirement unknown field',
      { matchExpressions: [{ key: 'a', operator: 'Exists', value: 'x' }] },
      'matchExpressions[0].value',
      'unknown field',
    ],
    ['no key', { matchExpressions: [{ operator: 'Exists' }] }, 'matchExpressions[0].key', 'Required value'],
    ['bad key', { matchExpressions: [{ key: '/a', operator: 'Exists' }] }, 'matchExpressions[0].key', 'Invalid value: "/a": prefix part'],
    [
      'unknown operator',
      { matchExpressions: [{ key: 'a', operator: 'Equals', values: ['x'] }] },
      'matchExpressions[0].operator',
      'Unsupported value: "Equals": supported values: "In", "NotIn", "Exists", "DoesNotExist"',
    ],
    ['no operator', { matchExpressions: [{ key: 'a' }] }, 'matchExpressions[0].operator', 'Unsupported value: ""'],
    [
      'values not a list',
      { matchExpressions: [{ key: 'a', operator: 'In', values: 'x' }] },
      'matchExpressions[0].values',
      'expected a list',
    ],
    [
      'value not a string',
      { matchExpressions: [{ key: 'a', operator: 'In', values: [1] }] },
      'matchExpressions[0].values[0]',
      'expected a string',
    ],
    [
      'bad value',
      { matchExpressions: [{ key: 'a', operator: 'In', values: ['a b'] }] },
      'matchExpressions[0].values[0]',
      'Invalid value: "a b"',
    ],
    ['In without values', { matchExpressions: [{ key: 'a', operator: 'In' }] }, 'matchExpressions[0].values', 'Required value'],
    [
      'NotIn with no values',
      { matchExpressions: [{ key: 'a', operator: 'NotIn', values: [] }] },
      'matchExpressions[0].values',
      'Required value',
    ],
    [
      'Exists with values',
      { matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] },
      'matchExpressions[0].values',
      'Forbidden',
    ],
    [
      'DoesNotExist with values',
      { matchExpressions: [{ key: 'a', operator: 'DoesNotExist', values: ['x'] }] },
      'matchExpressions[0].values',
      'Forbidden',
    ],
  ])('refuses %s', (_, value, field, detail) => {
    const problem = decodeLabelSelector(value);
    expect(problem).toMatchObject({ field });
    expect((problem as { detail: string }).detail).toContain(detail);
  });

  it('accepts every operator and keeps the requirements in order', () => {
    const selector = decoded({
      matchLabels: { team: 'platform' },
      matchExpressions: [
        { key: 'env', operator: 'In', values: ['dev', 'test'] },
        { key: 'tier', operator: 'NotIn', values: ['web'] },
        { key: 'example.com/owned', operator: 'Exists' },
        { key: 'legacy', operator: 'DoesNotExist' },
      ],
    });
    expect(formatLabelSelector(selector)).toBe('team=platform,env in (dev,test),tier notin (web),example.com/owned,!legacy');
    expect(selectsEverything(selector)).toBe(false);
    expect(selectsEverything(decoded({}))).toBe(true);
  });
});
