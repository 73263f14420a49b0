// Ports upstream pkg/registry/rbac/validation/rule_test.go TestAppliesTo (every row, with the
// index of the first applying subject).
import { describe, expect, it } from 'vitest';
import type { Subject } from '../../../api/rbac.ts';
import type { UserInfo } from '../../../api/types.ts';
import { appliesTo, describeSubject } from './subjects.ts';

const rows: Array<{ testCase: string; subjects: Subject[]; user: UserInfo; namespace?: string; appliesTo: boolean; index?: number }> = [
  { testCase: 'single subject that matches username', subjects: [{ kind: 'User', name: 'foobar' }], user: { username: 'foobar' }, appliesTo: true, index: 0 },
  {
    testCase: 'multiple subjects, one that matches username',
    subjects: [{ kind: 'User', name: 'barfoo' }, { kind: 'User', name: 'foobar' }],
    user: { username: 'foobar' },
    appliesTo: true,
    index: 1,
  },
  {
    testCase: 'multiple subjects, none that match username',
    subjects: [{ kind: 'User', name: 'barfoo' }, { kind: 'User', name: 'foobar' }],
    user: { username: 'zimzam' },
    appliesTo: false,
  },
  {
    testCase: 'multiple subjects, one that match group',
    subjects: [{ kind: 'User', name: 'barfoo' }, { kind: 'Group', name: 'foobar' }],
    user: { username: 'zimzam', groups: ['foobar'] },
    appliesTo: true,
    index: 1,
  },
  {
    testCase: 'multiple subjects, one that match group, should ignore namespace',
    subjects: [{ kind: 'User', name: 'barfoo' }, { kind: 'Group', name: 'foobar' }],
    user: { username: 'zimzam', groups: ['foobar'] },
    namespace: 'namespace1',
    appliesTo: true,
    index: 1,
  },
  {
    testCase: 'multiple subjects with a service account that matches',
    subjects: [{ kind: 'User', name: 'barfoo' }, { kind: 'Group', name: 'foobar' }, { kind: 'ServiceAccount', namespace: 'kube-system', name: 'default' }],
    user: { username: 'system:serviceaccount:kube-system:default' },
    namespace: 'default',
    appliesTo: true,
    index: 2,
  },
  { testCase: "* user subject name doesn't match all users", subjects: [{ kind: 'User', name: '*' }], user: { username: 'foobar' }, namespace: 'default', appliesTo: false },
  {
    testCase: 'binding to all authenticated and unauthenticated subjects matches authenticated user',
    subjects: [{ kind: 'Group', name: 'system:authenticated' }, { kind: 'Group', name: 'system:unauthenticated' }],
    user: { username: 'foobar', groups: ['system:authenticated'] },
    namespace: 'default',
    appliesTo: true,
    index: 0,
  },
  {
    testCase: 'binding to all authenticated and unauthenticated subjects matches anonymous user',
    subjects: [{ kind: 'Group', name: 'system:authenticated' }, { kind: 'Group', name: 'system:unauthenticated' }],
    user: { username: 'system:anonymous', groups: ['system:unauthenticated'] },
    namespace: 'default',
    appliesTo: true,
    index: 1,
  },
];

describe('TestAppliesTo', () => {
  it.each(rows)('$testCase', (row) => {
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
