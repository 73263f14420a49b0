// Defence in depth behind the loader's shape checks: a rule whose list fields are not lists (a
// string would otherwise be walked character by character, and "*" is a character) matches nothing.
import { describe, expect, it } from 'vitest';
import type { PolicyRule } from '../../../api/rbac.ts';
import type { RbacRequest } from './request.ts';
import { ruleAllows } from './rule-matching.ts';

const request = (overrides: Partial<RbacRequest>): RbacRequest => ({
  user: { username: 'alice' },
  resourceRequest: true,
  verb: 'update',
  namespace: 'n',
  apiGroup: '',
  resource: 'secrets',
  subresource: '',
  name: '',
  path: '',
  ...overrides,
});

const malformed = (rule: Record<string, unknown>) => rule as unknown as PolicyRule;

describe('malformed rules match nothing', () => {
  it.each<[string, Record<string, unknown>, Partial<RbacRequest>]>([
    ['resources as a string containing "*"', { verbs: ['update'], apiGroups: [''], resources: '*/finalizers' }, {}],
    [
      'resourceNames as a string',
      { verbs: ['delete'], apiGroups: [''], resources: ['configmaps'], resourceNames: 'app-config-prod' },
      { verb: 'delete', resource: 'configmaps', name: 'config' },
    ],
    [
      'resourceNames as a string, collection request',
      { verbs: ['list'], apiGroups: [''], resources: ['configmaps'], resourceNames: 'x' },
      { verb: 'list', resource: 'configmaps' },
    ],
    ['verbs as a string', { verbs: '*', apiGroups: [''], resources: ['secrets'] }, {}],
    ['apiGroups as a string', { verbs: ['update'], apiGroups: '*', resources: ['secrets'] }, {}],
    ['nonResourceURLs as a string', { verbs: ['get'], nonResourceURLs: '*' }, { resourceRequest: false, verb: 'get', path: '/metrics' }],
  ])('%s', (_name, rule, overrides) => {
    expect(ruleAllows(request(overrides), malformed(rule))).toBe(false);
  });

  it('the same rules written as lists do allow (the cases above are not vacuous)', () => {
    expect(ruleAllows(request({}), { verbs: ['update'], apiGroups: [''], resources: ['*'] })).toBe(true);
    expect(
      ruleAllows(request({ verb: 'delete', resource: 'configmaps', name: 'config' }), {
        verbs: ['delete'],
        apiGroups: [''],
        resources: ['configmaps'],
        resourceNames: ['config'],
      }),
    ).toBe(true);
  });
});
