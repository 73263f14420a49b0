// Ports upstream pkg/registry/rbac/validation/rule_test.go TestDefaultRuleResolver (every row):
// the rules that apply to a user in a namespace, compared as a set.
import { describe, expect, it } from 'vitest';
import type { PolicyRule } from '../../../api/rbac.ts';
import type { UserInfo } from '../../../api/types.ts';
import { ruleKey } from './aggregation.ts';
import { RuleResolver } from './rule-resolver.ts';

const ruleReadPods: PolicyRule = { verbs: ['GET', 'WATCH'], apiGroups: ['v1'], resources: ['pods'] };
const ruleReadServices: PolicyRule = { verbs: ['GET', 'WATCH'], apiGroups: ['v1'], resources: ['services'] };
const ruleWriteNodes: PolicyRule = { verbs: ['PUT', 'CREATE', 'UPDATE'], apiGroups: ['v1'], resources: ['nodes'] };
const ruleAdmin: PolicyRule = { verbs: ['*'], apiGroups: ['*'], resources: ['*'] };

const staticRoles1 = new RuleResolver({
  roles: [{ metadata: { namespace: 'namespace1', name: 'readthings' }, rules: [ruleReadPods, ruleReadServices] }],
  clusterRoles: [
    { metadata: { name: 'cluster-admin' }, rules: [ruleAdmin] },
    { metadata: { name: 'write-nodes' }, rules: [ruleWriteNodes] },
  ],
  roleBindings: [
    {
      metadata: { namespace: 'namespace1' },
      subjects: [{ kind: 'User', name: 'foobar' }, { kind: 'Group', name: 'group1' }],
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'readthings' },
    },
  ],
  clusterRoleBindings: [
    {
      subjects: [{ kind: 'User', name: 'admin' }, { kind: 'Group', name: 'admin' }],
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
    },
  ],
});

const rows: Array<{ user: UserInfo; namespace: string; effectiveRules: PolicyRule[] }> = [
  { user: { username: 'foobar' }, namespace: 'namespace1', effectiveRules: [ruleReadPods, ruleReadServices] },
  { user: { username: 'foobar' }, namespace: 'namespace2', effectiveRules: [] },
  // Same as above but without a namespace. Only cluster rules should apply.
  { user: { username: 'foobar', groups: ['admin'] }, namespace: '', effectiveRules: [ruleAdmin] },
  { user: {}, namespace: '', effectiveRules: [] },
];

describe('TestDefaultRuleResolver', () => {
  it.each(rows.map((row, i) => ({ ...row, i })))('case $i', ({ user, namespace, effectiveRules }) => {
    const { rules, error } = staticRoles1.rulesFor(user, namespace);
    expect(error).toBeUndefined();
    expect(rules.map(ruleKey).sort()).toEqual(effectiveRules.map(ruleKey).sort());
  });

  it('collects resolution errors alongside the rules it could resolve', () => {
    const resolver = new RuleResolver({
      roles: [],
      clusterRoles: [{ metadata: { name: 'ok' }, rules: [ruleAdmin] }],
      roleBindings: [],
      clusterRoleBindings: [
        { metadata: { name: 'a' }, subjects: [{ kind: 'User', name: 'u' }], roleRef: { apiGroup: '', kind: 'ClusterRole', name: 'nope' } },
        { metadata: { name: 'b' }, subjects: [{ kind: 'User', name: 'u' }], roleRef: { apiGroup: '', kind: 'ClusterRole', name: 'ok' } },
      ],
    });
    expect(resolver.rulesFor({ username: 'u' }, '')).toEqual({ rules: [ruleAdmin], error: 'clusterrole.rbac.authorization.k8s.io "nope" not found' });
  });
});
