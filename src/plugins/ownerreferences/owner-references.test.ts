import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../api/types.ts';
import { isChangingOwnerReferences, newlyBlockingReferences, ownerReferencesOf, readReferences } from './owner-references.ts';

const withRefs = (...refs: unknown[]): KubeObject => ({ metadata: { ownerReferences: refs as never } });
const rc = (extra: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'ReplicationController', name: 'rc1', uid: 'u1', ...extra });

describe('ownerReferencesOf', () => {
  it.each([
    ['no object', undefined, undefined],
    ['an array instead of an object', [] as unknown as KubeObject, undefined],
    ['no metadata', {}, []],
    ['metadata that is not an object', { metadata: 'x' } as unknown as KubeObject, []],
    ['ownerReferences that is not a list', { metadata: { ownerReferences: 'x' } } as unknown as KubeObject, []],
    ['a list with a non-object entry (unstructured drops the whole list)', withRefs(rc(), 'x'), []],
  ])('%s', (_label, object, expected) => {
    expect(ownerReferencesOf(object)).toEqual(expected);
  });

  it('keeps only the OwnerReference fields, with non-boolean flags as nil', () => {
    expect(ownerReferencesOf(withRefs({ ...rc(), controller: 'yes', blockOwnerDeletion: null, extraField: 1 }))).toEqual([
      { apiVersion: 'v1', kind: 'ReplicationController', name: 'rc1', uid: 'u1' },
    ]);
  });
});

describe('isChangingOwnerReferences (semantic deep-equal, positional)', () => {
  it.each([
    ['create without references', withRefs(), undefined, false],
    ['create with references', withRefs(rc()), undefined, true],
    ['identical', withRefs(rc()), withRefs(rc()), false],
    ['unknown fields do not count', withRefs({ ...rc(), somethingElse: 1 }), withRefs(rc()), false],
    ['absent and empty lists are equal', {}, withRefs(), false],
    ['nil blockOwnerDeletion differs from false', withRefs(rc({ blockOwnerDeletion: false })), withRefs(rc()), true],
    ['null is nil', withRefs(rc({ blockOwnerDeletion: null })), withRefs(rc()), false],
    ['controller flag change', withRefs(rc({ controller: true })), withRefs(rc({ controller: false })), true],
    ['reordering is a change', withRefs(rc(), rc({ uid: 'u2' })), withRefs(rc({ uid: 'u2' }), rc()), true],
    ['an added reference', withRefs(rc(), rc({ uid: 'u2' })), withRefs(rc()), true],
    ['an object without metadata access on update', [] as unknown as KubeObject, withRefs(rc()), false],
  ])('%s', (_label, object, oldObject, expected) => {
    expect(isChangingOwnerReferences(readReferences(object as KubeObject, oldObject as KubeObject | undefined))).toBe(expected);
  });
});

describe('newlyBlockingReferences', () => {
  it.each([
    ['create: every blocking reference', withRefs(rc({ blockOwnerDeletion: true }), rc({ uid: 'u2' })), undefined, ['u1']],
    ['update: nil → true', withRefs(rc({ blockOwnerDeletion: true })), withRefs(rc()), ['u1']],
    ['update: false → true', withRefs(rc({ blockOwnerDeletion: true })), withRefs(rc({ blockOwnerDeletion: false })), ['u1']],
    ['update: true → true is not new', withRefs(rc({ blockOwnerDeletion: true })), withRefs(rc({ blockOwnerDeletion: true })), []],
    ['update: true → false', withRefs(rc({ blockOwnerDeletion: false })), withRefs(rc({ blockOwnerDeletion: true })), []],
    [
      'update: matched by uid, not position or name',
      withRefs(rc({ uid: 'u2', name: 'other', blockOwnerDeletion: true })),
      withRefs(rc({ blockOwnerDeletion: true })),
      ['u2'],
    ],
    [
      'update: an old object without metadata access counts as all new',
      withRefs(rc({ blockOwnerDeletion: true })),
      [] as unknown as KubeObject,
      ['u1'],
    ],
  ])('%s', (_label, object, oldObject, uids) => {
    expect(newlyBlockingReferences(readReferences(object, oldObject)).map((r) => r.uid)).toEqual(uids);
  });
});
