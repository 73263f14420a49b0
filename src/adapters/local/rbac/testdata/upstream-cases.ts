// The upstream RBAC test tables, as data: rbac_test.go TestAuthorizer and TestRuleMatches
// (plugin/pkg/auth/authorizer/rbac), rule_test.go TestDefaultRuleResolver and TestAppliesTo
// (pkg/registry/rbac/validation). The tests beside this file run each row against the part it
// exercises; the RBAC mirror's equality test runs every row through the mirror and through
// SubjectAccessReview alike.
import type { ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding, Subject } from '../../../../api/rbac.ts';
import type { UserInfo } from '../../../../api/types.ts';
import type { AuthorizationAttributes } from '../../../../ports/authorizer.ts';
import type { RbacRequest } from '../request.ts';
import {
  resourceAttributes as attrs,
  bindToClusterRole,
  newClusterRole,
  newClusterRoleBinding,
  newRoleBinding,
  newRule,
  nonResourceAttributes,
} from './builders.ts';

export interface RbacTableState {
  roles?: Role[];
  roleBindings?: RoleBinding[];
  clusterRoles?: ClusterRole[];
  clusterRoleBindings?: ClusterRoleBinding[];
}

/** TestAuthorizer: every case, every shouldPass/shouldFail row. */
export const authorizerCases: Array<
  RbacTableState & { name: string; shouldPass: AuthorizationAttributes[]; shouldFail: AuthorizationAttributes[] }
> = [
  {
    name: 'case 0: ClusterRole bound by a RoleBinding in ns1',
    clusterRoles: [newClusterRole('admin', newRule('*', '*', '*', '*'))],
    roleBindings: [newRoleBinding('ns1', 'admin', bindToClusterRole, 'User:admin', 'Group:admins')],
    shouldPass: [
      attrs('admin', '', 'get', 'Pods', '', 'ns1', ''),
      attrs('admin', '', 'watch', 'Pods', '', 'ns1', ''),
      attrs('admin', 'group1', 'watch', 'Foobar', '', 'ns1', ''),
      attrs('joe', 'admins', 'watch', 'Foobar', '', 'ns1', ''),
      attrs('joe', 'group1,admins', 'watch', 'Foobar', '', 'ns1', ''),
    ],
    shouldFail: [
      attrs('admin', '', 'GET', 'Pods', '', 'ns2', ''),
      attrs('admin', '', 'GET', 'Nodes', '', '', ''),
      attrs('admin', 'admins', 'GET', 'Pods', '', 'ns2', ''),
      attrs('admin', 'admins', 'GET', 'Nodes', '', '', ''),
    ],
  },
  {
    name: 'case 1: non-resource URLs',
    clusterRoles: [
      newClusterRole('non-resource-url-getter', newRule('get', '', '', '/apis')),
      newClusterRole('non-resource-url', newRule('*', '', '', '/apis')),
      newClusterRole('non-resource-url-prefix', newRule('get', '', '', '/apis/*')),
    ],
    clusterRoleBindings: [
      newClusterRoleBinding('non-resource-url-getter', 'User:foo', 'Group:bar'),
      newClusterRoleBinding('non-resource-url', 'User:admin', 'Group:admin'),
      newClusterRoleBinding('non-resource-url-prefix', 'User:prefixed', 'Group:prefixed'),
    ],
    shouldPass: [
      nonResourceAttributes({ username: 'foo' }, 'get', '/apis'),
      nonResourceAttributes({ groups: ['bar'] }, 'get', '/apis'),
      nonResourceAttributes({ username: 'admin' }, 'get', '/apis'),
      nonResourceAttributes({ groups: ['admin'] }, 'get', '/apis'),
      nonResourceAttributes({ username: 'admin' }, 'watch', '/apis'),
      nonResourceAttributes({ groups: ['admin'] }, 'watch', '/apis'),
      nonResourceAttributes({ username: 'prefixed' }, 'get', '/apis/v1'),
      nonResourceAttributes({ groups: ['prefixed'] }, 'get', '/apis/v1'),
      nonResourceAttributes({ username: 'prefixed' }, 'get', '/apis/v1/foobar'),
      nonResourceAttributes({ groups: ['prefixed'] }, 'get', '/apis/v1/foorbar'),
    ],
    shouldFail: [
      // wrong verb
      nonResourceAttributes({ username: 'foo' }, 'watch', '/apis'),
      nonResourceAttributes({ groups: ['bar'] }, 'watch', '/apis'),
      // wrong path
      nonResourceAttributes({ username: 'foo' }, 'get', '/api/v1'),
      nonResourceAttributes({ groups: ['bar'] }, 'get', '/api/v1'),
      nonResourceAttributes({ username: 'admin' }, 'get', '/api/v1'),
      nonResourceAttributes({ groups: ['admin'] }, 'get', '/api/v1'),
      // not covered by prefix
      nonResourceAttributes({ username: 'prefixed' }, 'get', '/api/v1'),
      nonResourceAttributes({ groups: ['prefixed'] }, 'get', '/api/v1'),
    ],
  },
  {
    name: 'case 2: a bare resource rule does not cover its subresources',
    clusterRoles: [newClusterRole('admin', newRule('*', '*', 'pods', '*'))],
    roleBindings: [newRoleBinding('ns1', 'admin', bindToClusterRole, 'User:admin', 'Group:admins')],
    shouldPass: [attrs('admin', '', 'get', 'pods', '', 'ns1', '')],
    shouldFail: [attrs('admin', '', 'get', 'pods', 'status', 'ns1', '')],
  },
  {
    name: 'case 3: pods/status and */scale rules',
    clusterRoles: [newClusterRole('admin', newRule('*', '*', 'pods/status', '*'), newRule('*', '*', '*/scale', '*'))],
    roleBindings: [newRoleBinding('ns1', 'admin', bindToClusterRole, 'User:admin', 'Group:admins')],
    shouldPass: [
      attrs('admin', '', 'get', 'pods', 'status', 'ns1', ''),
      attrs('admin', '', 'get', 'pods', 'scale', 'ns1', ''),
      attrs('admin', '', 'get', 'deployments', 'scale', 'ns1', ''),
      attrs('admin', '', 'get', 'anything', 'scale', 'ns1', ''),
    ],
    shouldFail: [attrs('admin', '', 'get', 'pods', '', 'ns1', '')],
  },
];

/** TestRuleMatches: every rule and every row (true: the rule allows the request). */
const base: RbacRequest = {
  user: {},
  resourceRequest: true,
  verb: '',
  namespace: '',
  apiGroup: '',
  resource: '',
  subresource: '',
  name: '',
  path: '',
};
const res = (verb: string, group: string, resource: string, subresource = '', name = ''): RbacRequest => ({
  ...base,
  verb,
  apiGroup: group,
  resource,
  subresource,
  name,
});
const url = (verb: string, path: string): RbacRequest => ({ ...base, resourceRequest: false, verb, path });

export interface RuleMatchesCase {
  name: string;
  rule: PolicyRule;
  rows: Array<[RbacRequest, boolean]>;
}

// rbacv1helpers.NewRule(verbs...).Groups(...).Resources(...).URLs(...)
const rule = (verbs: string[], parts: Partial<PolicyRule> = {}): PolicyRule => ({ verbs, ...parts });

export const ruleMatchesCases: RuleMatchesCase[] = [
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

/** TestDefaultRuleResolver: the static roles, and per row the rules that apply to a user in a namespace. */
const ruleReadPods: PolicyRule = { verbs: ['GET', 'WATCH'], apiGroups: ['v1'], resources: ['pods'] };
const ruleReadServices: PolicyRule = { verbs: ['GET', 'WATCH'], apiGroups: ['v1'], resources: ['services'] };
const ruleWriteNodes: PolicyRule = { verbs: ['PUT', 'CREATE', 'UPDATE'], apiGroups: ['v1'], resources: ['nodes'] };
const ruleAdmin: PolicyRule = { verbs: ['*'], apiGroups: ['*'], resources: ['*'] };

export const staticRoles1: Required<RbacTableState> = {
  roles: [{ metadata: { namespace: 'namespace1', name: 'readthings' }, rules: [ruleReadPods, ruleReadServices] }],
  clusterRoles: [
    { metadata: { name: 'cluster-admin' }, rules: [ruleAdmin] },
    { metadata: { name: 'write-nodes' }, rules: [ruleWriteNodes] },
  ],
  roleBindings: [
    {
      metadata: { namespace: 'namespace1' },
      subjects: [
        { kind: 'User', name: 'foobar' },
        { kind: 'Group', name: 'group1' },
      ],
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'readthings' },
    },
  ],
  clusterRoleBindings: [
    {
      subjects: [
        { kind: 'User', name: 'admin' },
        { kind: 'Group', name: 'admin' },
      ],
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
    },
  ],
};

export const defaultRuleResolverRows: Array<{ user: UserInfo; namespace: string; effectiveRules: PolicyRule[] }> = [
  { user: { username: 'foobar' }, namespace: 'namespace1', effectiveRules: [ruleReadPods, ruleReadServices] },
  { user: { username: 'foobar' }, namespace: 'namespace2', effectiveRules: [] },
  // Same as above but without a namespace. Only cluster rules should apply.
  { user: { username: 'foobar', groups: ['admin'] }, namespace: '', effectiveRules: [ruleAdmin] },
  { user: {}, namespace: '', effectiveRules: [] },
];

/** TestAppliesTo: every row, with the index of the first applying subject. */
export const appliesToRows: Array<{
  testCase: string;
  subjects: Subject[];
  user: UserInfo;
  namespace?: string;
  appliesTo: boolean;
  index?: number;
}> = [
  {
    testCase: 'single subject that matches username',
    subjects: [{ kind: 'User', name: 'foobar' }],
    user: { username: 'foobar' },
    appliesTo: true,
    index: 0,
  },
  {
    testCase: 'multiple subjects, one that matches username',
    subjects: [
      { kind: 'User', name: 'barfoo' },
      { kind: 'User', name: 'foobar' },
    ],
    user: { username: 'foobar' },
    appliesTo: true,
    index: 1,
  },
  {
    testCase: 'multiple subjects, none that match username',
    subjects: [
      { kind: 'User', name: 'barfoo' },
      { kind: 'User', name: 'foobar' },
    ],
    user: { username: 'zimzam' },
    appliesTo: false,
  },
  {
    testCase: 'multiple subjects, one that match group',
    subjects: [
      { kind: 'User', name: 'barfoo' },
      { kind: 'Group', name: 'foobar' },
    ],
    user: { username: 'zimzam', groups: ['foobar'] },
    appliesTo: true,
    index: 1,
  },
  {
    testCase: 'multiple subjects, one that match group, should ignore namespace',
    subjects: [
      { kind: 'User', name: 'barfoo' },
      { kind: 'Group', name: 'foobar' },
    ],
    user: { username: 'zimzam', groups: ['foobar'] },
    namespace: 'namespace1',
    appliesTo: true,
    index: 1,
  },
  {
    testCase: 'multiple subjects with a service account that matches',
    subjects: [
      { kind: 'User', name: 'barfoo' },
      { kind: 'Group', name: 'foobar' },
      { kind: 'ServiceAccount', namespace: 'kube-system', name: 'default' },
    ],
    user: { username: 'system:serviceaccount:kube-system:default' },
    namespace: 'default',
    appliesTo: true,
    index: 2,
  },
  {
    testCase: "* user subject name doesn't match all users",
    subjects: [{ kind: 'User', name: '*' }],
    user: { username: 'foobar' },
    namespace: 'default',
    appliesTo: false,
  },
  {
    testCase: 'binding to all authenticated and unauthenticated subjects matches authenticated user',
    subjects: [
      { kind: 'Group', name: 'system:authenticated' },
      { kind: 'Group', name: 'system:unauthenticated' },
    ],
    user: { username: 'foobar', groups: ['system:authenticated'] },
    namespace: 'default',
    appliesTo: true,
    index: 0,
  },
  {
    testCase: 'binding to all authenticated and unauthenticated subjects matches anonymous user',
    subjects: [
      { kind: 'Group', name: 'system:authenticated' },
      { kind: 'Group', name: 'system:unauthenticated' },
    ],
    user: { username: 'system:anonymous', groups: ['system:unauthenticated'] },
    namespace: 'default',
    appliesTo: true,
    index: 1,
  },
];
