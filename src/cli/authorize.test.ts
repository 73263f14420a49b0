// How `authorize --as` completes an identity and builds the review, as kubectl auth can-i does.
import { describe, expect, it } from 'vitest';
import { canIReview, impersonatedGroups } from './authorize.ts';

describe('can-i helpers', () => {
  it.each([
    ['alice', [], ['system:authenticated']],
    ['alice', ['devs'], ['devs', 'system:authenticated']],
    ['alice', ['system:unauthenticated'], ['system:unauthenticated']],
    ['system:anonymous', [], ['system:unauthenticated']],
    ['system:serviceaccount:ns:sa', [], ['system:serviceaccounts', 'system:serviceaccounts:ns', 'system:authenticated']],
    ['system:serviceaccount:ns:sa', ['g'], ['g', 'system:authenticated']],
    ['system:serviceaccount:Bad_NS:sa', [], ['system:authenticated']],
  ])('impersonatedGroups(%j, %j) = %j', (user, groups, expected) => {
    expect(impersonatedGroups(user, groups)).toEqual(expected);
  });

  it('builds the SubjectAccessReview kubectl would send', () => {
    expect(canIReview(['get', 'deployments.apps/scale', 'web'], { as: 'alice', asGroup: [], namespace: 'ns' }).spec).toEqual({
      user: 'alice',
      groups: ['system:authenticated'],
      resourceAttributes: { namespace: 'ns', verb: 'get', group: 'apps', resource: 'deployments', subresource: 'scale', name: 'web' },
    });
    expect(canIReview(['get', 'pods'], { as: 'alice', asGroup: [], asUid: 'u1' }).spec).toMatchObject({
      uid: 'u1',
      resourceAttributes: { namespace: 'default', group: '', resource: 'pods' },
    });
    expect(canIReview(['get', '/metrics'], { as: 'alice', asGroup: [] }).spec.nonResourceAttributes).toEqual({
      verb: 'get',
      path: '/metrics',
    });
  });
});
