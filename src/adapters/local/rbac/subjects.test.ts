// Ports upstream pkg/registry/rbac/validation/rule_test.go TestAppliesTo (every row, with the
// index of the first applying subject).
import { describe, expect, it } from 'vitest';
import { appliesTo, describeSubject } from './subjects.ts';
import { appliesToRows } from './testdata/upstream-cases.ts';

describe('TestAppliesTo', () => {
  it.each(appliesToRows)('$testCase', (row) => {
    const index = appliesTo(row.user, row.subjects, row.namespace ?? '');
    expect(index >= 0).toBe(row.appliesTo);
    if (row.appliesTo) expect(index).toBe(row.index);
  });
});

describe('service-account subjects', () => {
  it.each([
    [{ kind: 'ServiceAccount', name: 'sa' }, 'ns', 'system:serviceaccount:ns:sa', true],
    [{ kind: 'ServiceAccount', name: 'sa' }, '', 'system:serviceaccount::sa', false],
    [{ kind: 'ServiceAccount', name: 'sa', namespace: 'x' }, 'ns', 'system:serviceaccount:ns:sa', false],
    [{ kind: 'ServiceAccount', name: 'sa' }, 'ns', 'system:serviceaccount:ns:sa2', false],
    [{ kind: 'ServiceAccount', name: 'a:b' }, 'ns', 'system:serviceaccount:ns:a:b', true],
  ])('%j in %j applies to %s: %s', (subject, namespace, username, expected) => {
    expect(appliesTo({ username }, [subject], namespace) >= 0).toBe(expected);
  });

  it('describeSubject', () => {
    expect(describeSubject({ kind: 'ServiceAccount', name: 'sa' }, 'ns')).toBe('ServiceAccount "sa/ns"');
    expect(describeSubject({ kind: 'ServiceAccount', name: 'sa', namespace: 'x' }, 'ns')).toBe('ServiceAccount "sa/x"');
    expect(describeSubject({ kind: 'Group', name: 'g' }, 'ns')).toBe('Group "g"');
  });
});
