// upstream plugin/pkg/auth/authorizer/rbac/rbac_test.go TestRuleMatches, every row, as data: the
// rule-matching tests and the explanation tests (every row a rule does not match, granted by its
// suggestion) share it.
import type { PolicyRule } from '../../../api/rbac.ts';
import type { RbacRequest } from './request.ts';

const base: RbacRequest = { user: {}, resourceRequest: true, verb: '', namespace: '', apiGroup: '', resource: '', subresource: '', name: '', path: '' };
export const res = (verb: string, group: string, resource: string, subresource = '', name = ''): RbacRequest => ({ ...base, verb, apiGroup: group, resource, subresource, name });
export const url = (verb: string, path: string): RbacRequest => ({ ...base, resourceRequest: false, verb, path });

export interface RuleMatchCase {
  name: string;
  rule: PolicyRule;
  rows: Array<[RbacRequest, boolean]>;
}

// rbacv1helpers.NewRule(verbs...).Groups(...).Resources(...).URLs(...)
const rule = (verbs: string[], parts: Partial<PolicyRule> = {}): PolicyRule => ({ verbs, ...parts });

export const ruleMatchCases: RuleMatchCase[] = [
  {
    name: 'star verb, exact match other',
    rule: rule(['*'], { apiGroups: ['group1'], resources: ['resource1'] }),
    rows: [
      [res('verb1', 'group1', 'resource1'), true],
      [res('verb1', 'group2', 'resource1'), false],
      [res('verb1', 'group1', 'resource2'), false],
      [res('verb1', 'group2', 'resource2'), false],
      [res('verb2', 'group1', 'resource1'), true],
      [res('verb2', 'group2', 'resource1'), false],
      [res('verb2', 'group1', 'resource2'), false],
      [res('verb2', 'group2', 'resource2'), false],
    ],
  },
  {
    name: 'star group, exact match other',
    rule: rule(['verb1'], { apiGroups: ['*'], resources: ['resource1'] }),
    rows: [
      [res('verb1', 'group1', 'resource1'), true],
      [res('verb1', 'group2', 'resource1'), true],
      [res('verb1', 'group1', 'resource2'), false],
      [res('verb1', 'group2', 'resource2'), false],
      [res('verb2', 'group1', 'resource1'), false],
      [res('verb2', 'group2', 'resource1'), false],
      [res('verb2', 'group1', 'resource2'), false],
      [res('verb2', 'group2', 'resource2'), false],
    ],
  },
  {
    name: 'star resource, exact match other',
    rule: rule(['verb1'], { apiGroups: ['group1'], resources: ['*'] }),
    rows: [
      [res('verb1', 'group1', 'resource1'), true],
      [res('verb1', 'group2', 'resource1'), false],
      [res('verb1', 'group1', 'resource2'), true],
      [res('verb1', 'group2', 'resource2'), false],
      [res('verb2', 'group1', 'resource1'), false],
      [res('verb2', 'group2', 'resource1'), false],
      [res('verb2', 'group1', 'resource2'), false],
      [res('verb2', 'group2', 'resource2'), false],
    ],
  },
  {
    name: 'tuple expansion',
    rule: rule(['verb1', 'verb2'], { apiGroups: ['group1', 'group2'], resources: ['resource1', 'resource2'] }),
    rows: [
      [res('verb1', 'group1', 'resource1'), true],
      [res('verb1', 'group2', 'resource1'), true],
      [res('verb1', 'group1', 'resource2'), true],
      [res('verb1', 'group2', 'resource2'), true],
      [res('verb2', 'group1', 'resource1'), true],
      [res('verb2', 'group2', 'resource1'), true],
      [res('verb2', 'group1', 'resource2'), true],
      [res('verb2', 'group2', 'resource2'), true],
    ],
  },
  {
    name: 'subresource expansion',
    rule: rule(['*'], { apiGroups: ['*'], resources: ['resource1/subresource1'] }),
    rows: [
      [res('verb1', 'group1', 'resource1', 'subresource1'), true],
      [res('verb1', 'group2', 'resource1', 'subresource2'), false],
      [res('verb1', 'group1', 'resource2', 'subresource1'), false],
      [res('verb1', 'group2', 'resource2', 'subresource1'), false],
      [res('verb2', 'group1', 'resource1', 'subresource1'), true],
      [res('verb2', 'group2', 'resource1', 'subresource2'), false],
      [res('verb2', 'group1', 'resource2', 'subresource1'), false],
      [res('verb2', 'group2', 'resource2', 'subresource1'), false],
    ],
  },
  {
    name: 'star nonresource, exact match other',
    rule: rule(['verb1'], { nonResourceURLs: ['*'] }),
    rows: [
      [url('verb1', '/foo'), true],
      [url('verb1', '/foo/bar'), true],
      [url('verb1', '/foo/baz'), true],
      [url('verb1', '/foo/bar/one'), true],
      [url('verb1', '/foo/baz/one'), true],
      [url('verb2', '/foo'), false],
      [url('verb2', '/foo/bar'), false],
      [url('verb2', '/foo/baz'), false],
      [url('verb2', '/foo/bar/one'), false],
      [url('verb2', '/foo/baz/one'), false],
    ],
  },
  {
    name: 'star nonresource subpath',
    rule: rule(['verb1'], { nonResourceURLs: ['/foo/*'] }),
    rows: [
      [url('verb1', '/foo'), false],
      [url('verb1', '/foo/bar'), true],
      [url('verb1', '/foo/baz'), true],
      [url('verb1', '/foo/bar/one'), true],
      [url('verb1', '/foo/baz/one'), true],
      [url('verb1', '/notfoo'), false],
      [url('verb1', '/notfoo/bar'), false],
      [url('verb1', '/notfoo/baz'), false],
      [url('verb1', '/notfoo/bar/one'), false],
      [url('verb1', '/notfoo/baz/one'), false],
    ],
  },
  {
    name: 'star verb, exact nonresource',
    rule: rule(['*'], { nonResourceURLs: ['/foo', '/foo/bar/one'] }),
    rows: [
      [url('verb1', '/foo'), true],
      [url('verb1', '/foo/bar'), false],
      [url('verb1', '/foo/baz'), false],
      [url('verb1', '/foo/bar/one'), true],
      [url('verb1', '/foo/baz/one'), false],
      [url('verb2', '/foo'), true],
      [url('verb2', '/foo/bar'), false],
      [url('verb2', '/foo/baz'), false],
      [url('verb2', '/foo/bar/one'), true],
      [url('verb2', '/foo/baz/one'), false],
    ],
  },
];
