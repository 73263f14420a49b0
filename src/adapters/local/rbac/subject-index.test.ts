// The subject index: a decision considers only the bindings that name the user, one of its
// groups or its service account, in load order — never every binding.
import { describe, expect, it } from 'vitest';
import { SubjectIndex, subjectKey } from './subject-index.ts';

describe('SubjectIndex', () => {
  it('returns only bindings naming the user or its groups, ascending, once each', () => {
    const index = new SubjectIndex();
    for (let i = 0; i < 10_000; i++)
      index.add(
        [
          { kind: 'User', name: `user-${i}` },
          { kind: 'Group', name: `team-${i % 1000}` },
        ],
        'ns',
        i,
      );
    expect(index.candidates({ username: 'user-4242', groups: [] })).toEqual([4242]);
    expect(index.candidates({ username: 'nobody', groups: ['team-7'] })).toEqual([7, 1007, 2007, 3007, 4007, 5007, 6007, 7007, 8007, 9007]);
    expect(index.candidates({ username: 'user-1007', groups: ['team-7', 'team-7'] })).toEqual([
      7, 1007, 2007, 3007, 4007, 5007, 6007, 7007, 8007, 9007,
    ]);
    expect(index.candidates({ username: 'nobody', groups: ['nothing'] })).toEqual([]);
  });

  it('a binding naming the same user twice is listed once', () => {
    const index = new SubjectIndex();
    index.add(
      [
        { kind: 'User', name: 'a' },
        { kind: 'User', name: 'a' },
      ],
      '',
      0,
    );
    expect(index.candidates({ username: 'a' })).toEqual([0]);
  });

  it.each([
    [{ kind: 'User', name: 'alice' }, 'ns', 'u:alice'],
    [{ kind: 'Group', name: 'devs' }, 'ns', 'g:devs'],
    [{ kind: 'ServiceAccount', name: 'sa' }, 'ns', 'u:system:serviceaccount:ns:sa'],
    [{ kind: 'ServiceAccount', name: 'sa', namespace: 'other' }, 'ns', 'u:system:serviceaccount:other:sa'],
    [{ kind: 'ServiceAccount', name: 'sa' }, '', undefined],
    [{ kind: 'Robot', name: 'r2' }, 'ns', undefined],
  ])('subjectKey(%j, %j) = %j', (subject, namespace, key) => {
    expect(subjectKey(subject, namespace)).toBe(key);
  });

  it('the empty username is a key like any other (upstream compares "" == "")', () => {
    const index = new SubjectIndex();
    index.add([{ kind: 'User', name: '' }], '', 3);
    expect(index.candidates({ groups: ['x'] })).toEqual([3]);
  });
});
