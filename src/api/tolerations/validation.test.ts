// Upstream podtolerationrestriction/apis/podtolerationrestriction/validation/validation_test.go
// TestValidateConfiguration, every row (through validateTolerations, which it calls); then each
// message ValidateTolerations can give.
import { describe, expect, it } from 'vitest';
import type { Toleration } from '../core.ts';
import { fieldsOf } from './toleration.ts';
import { validateTolerations } from './validation.ts';

const validate = (tolerations: Toleration[], path = 'default') =>
  validateTolerations(tolerations.map(fieldsOf), path).map((e) => e.message);

describe('TestValidateConfiguration', () => {
  it.each([
    {
      testName: 'Valid cases',
      default: [
        { key: 'foo', operator: 'Exists', value: '', effect: 'NoExecute', tolerationSeconds: 60 },
        { key: 'foo', operator: 'Equal', value: 'bar', effect: 'NoExecute', tolerationSeconds: 60 },
        { key: 'foo', operator: 'Equal', value: 'bar', effect: 'NoSchedule' },
        { operator: 'Exists', effect: 'NoSchedule' },
      ],
      whitelist: [
        { key: 'foo', value: 'bar', effect: 'NoSchedule' },
        { key: 'foo', operator: 'Equal', value: 'bar' },
      ],
      testStatus: true,
    },
    {
      testName: 'Invalid case',
      default: [],
      whitelist: [{ key: 'foo', operator: 'Exists', value: 'bar', effect: 'NoSchedule' }],
      testStatus: false,
    },
    { testName: 'Invalid case', default: [{ operator: 'Equal', value: 'bar', effect: 'NoSchedule' }], whitelist: [], testStatus: false },
  ])('$testName', ({ default: defaults, whitelist, testStatus }) => {
    const errors = [...validate(defaults, 'default'), ...validate(whitelist, 'whitelist')];
    expect(errors.length === 0).toBe(testStatus);
  });
});

describe('messages', () => {
  it.each([
    [
      { key: 'foo', operator: 'Exists', value: 'bar' },
      `default[0].operator: Invalid value: {"Key":"foo","Operator":"Exists","Value":"bar","Effect":"","TolerationSeconds":null}: value must be empty when \`operator\` is 'Exists'`,
    ],
    [
      { operator: 'Equal' },
      'default[0].operator: Invalid value: "Equal": operator must be Exists when `key` is empty, which means "match all values and all keys"',
    ],
    [
      { key: 'a', operator: 'Exists', effect: 'NoSchedule', tolerationSeconds: 5 },
      'default[0].effect: Invalid value: "NoSchedule": effect must be \'NoExecute\' when `tolerationSeconds` is set',
    ],
    [{ key: 'a', operator: 'Lt', value: '5' }, 'default[0].operator: Unsupported value: "Lt": supported values: "Equal", "Exists"'],
    [
      { key: 'a', operator: 'Exists', effect: 'NoScheduleNoAdmit' },
      'default[0].effect: Unsupported value: "NoScheduleNoAdmit": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
    ],
    [{ key: 'a b', operator: 'Exists' }, expect.stringMatching(/^default\[0\]\.key: Invalid value: "a b": name part must consist of/)],
    [{ key: 'a', value: '-x' }, expect.stringMatching(/^default\[0\]\.operator: Invalid value: "-x": a valid label must be/)],
  ])('%j', (toleration, message) => {
    expect(validate([toleration])).toEqual([message]);
  });

  it('reports every error of every toleration, in order', () => {
    expect(
      validate([
        { operator: 'Equal', effect: 'Sometimes' },
        { key: 'ok', operator: 'Exists' },
        { key: 'x', operator: 'Maybe' },
      ]),
    ).toEqual([
      'default[0].operator: Invalid value: "Equal": operator must be Exists when `key` is empty, which means "match all values and all keys"',
      'default[0].effect: Unsupported value: "Sometimes": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
      'default[2].operator: Unsupported value: "Maybe": supported values: "Equal", "Exists"',
    ]);
  });
});
