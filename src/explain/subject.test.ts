import { describe, expect, it } from 'vitest';
import { bindingSubject, describeRequester, splitServiceAccount } from './subject.ts';

describe('the subject a suggestion binds', () => {
  it.each([
    [
      { username: 'alice', groups: ['dev'] },
      { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' },
    ],
    [{ username: 'system:serviceaccount:ci:builder' }, { kind: 'ServiceAccount', name: 'builder', namespace: 'ci' }],
    // Not a well-formed service account name: bound as the user it is.
    [{ username: 'system:serviceaccount:ci' }, { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'system:serviceaccount:ci' }],
    [{ groups: ['system:authenticated', 'platform'] }, { kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'platform' }],
    [{ groups: ['system:authenticated'] }, undefined],
    [{}, undefined],
  ])('%j -> %j', (user, subject) => {
    expect(bindingSubject(user)).toEqual(subject);
  });

  it('splits service account usernames as upstream does', () => {
    expect(splitServiceAccount('system:serviceaccount:ns:name')).toEqual({ namespace: 'ns', name: 'name' });
    expect(splitServiceAccount('system:serviceaccount:ns:a:b')).toBeUndefined();
    expect(splitServiceAccount('system:serviceaccount::name')).toBeUndefined();
  });

  it('names the requester', () => {
    expect(describeRequester({ username: 'alice' })).toBe('user "alice"');
    expect(describeRequester({ groups: ['a', 'b'] })).toBe('a request of groups "a", "b"');
    expect(describeRequester({})).toBe('a request with no user or group');
  });
});
