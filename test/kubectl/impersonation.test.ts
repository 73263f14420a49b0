// The identity the stand-in admits a request as: the admin token's, or the impersonated one with
// groups completed as kube-apiserver's impersonation filter completes them.
import { describe, expect, it } from 'vitest';
import { adminUser, requestUser } from './impersonation.ts';

describe('requestUser', () => {
  it.each([
    ['no impersonation: the admin', {}, adminUser],
    ['a user alone is system:authenticated', { 'impersonate-user': 'demo-user' }, { username: 'demo-user', groups: ['system:authenticated'] }],
    ['repeated groups (joined by node) are split, then system:authenticated', { 'impersonate-user': 'boss', 'impersonate-group': 'platform-admins, auditors' }, { username: 'boss', groups: ['platform-admins', 'auditors', 'system:authenticated'] }],
    ['an explicit system:authenticated is not repeated', { 'impersonate-user': 'u', 'impersonate-group': 'system:authenticated' }, { username: 'u', groups: ['system:authenticated'] }],
    ['system:unauthenticated suppresses system:authenticated', { 'impersonate-user': 'u', 'impersonate-group': 'system:unauthenticated' }, { username: 'u', groups: ['system:unauthenticated'] }],
    ['system:anonymous gets no added group', { 'impersonate-user': 'system:anonymous' }, { username: 'system:anonymous', groups: [] }],
    [
      'a service account without groups gets its service-account groups',
      { 'impersonate-user': 'system:serviceaccount:team-a:builder' },
      { username: 'system:serviceaccount:team-a:builder', groups: ['system:serviceaccounts', 'system:serviceaccounts:team-a', 'system:authenticated'] },
    ],
    [
      'uid and extra (key unescaped and lower-cased)',
      { 'impersonate-user': 'u', 'impersonate-uid': 'abc-123', 'impersonate-extra-acme.com%2fproject': 'p1, p2' },
      { username: 'u', uid: 'abc-123', groups: ['system:authenticated'], extra: { 'acme.com/project': ['p1', 'p2'] } },
    ],
    ['groups without a user are refused', { 'impersonate-group': 'x' }, { error: 'requested impersonation of groups, uid or extra without impersonating a user' }],
  ])('%s', (_name, headers, expected) => {
    expect(requestUser(headers)).toEqual(expected);
  });
});
