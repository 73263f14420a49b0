// Ports upstream pkg/registry/rbac/validation/rule_test.go TestDefaultRuleResolver (every row):
// the rules that apply to a user in a namespace, compared as a set.
import { describe, expect, it } from 'vitest';
import type { PolicyRule } from '../../../api/rbac.ts';
import { ruleKey } from './aggregation.ts';
import { RuleResolver } from './rule-resolver.ts';
import { defaultRuleResolverRows, staticRoles1 as staticRolesState } from './testdata/upstream-cases.ts';

const ruleAdmin: PolicyRule = { verbs: ['*'], apiGroups: ['*'], resources: ['*'] };
const staticRoles1 = new RuleResolver(staticRolesState);

describe('TestDefaultRuleResolver', () => {
  it.each(defaultRuleResolverRows.map((row, i) => ({ ...row, i })))('case $i', ({ user, namespace, effectiveRules }) => {
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
    expect(resolver.rulesFor({ username: 'u' }, '')).toEqual({
      rules: [ruleAdmin],
      error: 'clusterrole.rbac.authorization.k8s.io "nope" not found',
    });
  });
});
