// ClusterRole aggregation resolved at load, as the clusterrole-aggregation controller would fill
// it (selected roles by name, de-duplicated), kept in union with rules already written.
import { describe, expect, it } from 'vitest';
import type { ClusterRole } from '../../../api/rbac.ts';
import { resolveAggregation } from './aggregation.ts';
import { createRbacAuthorizer } from './authorizer.ts';
import { labelSelectorMatches } from './label-selector.ts';

const role = (
  name: string,
  labels: Record<string, string>,
  rules: ClusterRole['rules'],
  aggregationRule?: ClusterRole['aggregationRule'],
): ClusterRole => ({
  metadata: { name, labels },
  rules,
  ...(aggregationRule ? { aggregationRule } : {}),
});
const get = (resource: string) => ({ verbs: ['get'], apiGroups: [''], resources: [resource] });

describe('resolveAggregation', () => {
  it('fills an aggregated role from matching roles, sorted by name, without duplicates or itself', () => {
    const { clusterRoles } = resolveAggregation([
      role('monitoring', {}, [], { clusterRoleSelectors: [{ matchLabels: { 'rbac.example.com/aggregate-to-monitoring': 'true' } }] }),
      role('z-endpoints', { 'rbac.example.com/aggregate-to-monitoring': 'true' }, [get('endpoints'), get('pods')]),
      role('a-pods', { 'rbac.example.com/aggregate-to-monitoring': 'true' }, [get('pods')]),
      role('other', {}, [get('secrets')]),
    ]);
    expect(clusterRoles.find((r) => r.metadata?.name === 'monitoring')?.rules).toEqual([get('pods'), get('endpoints')]);
  });

  it('settles chains: admin <- edit <- view', () => {
    const { clusterRoles } = resolveAggregation([
      role('admin', {}, [], { clusterRoleSelectors: [{ matchLabels: { 'to-admin': 'true' } }] }),
      role('edit', { 'to-admin': 'true' }, [], { clusterRoleSelectors: [{ matchLabels: { 'to-edit': 'true' } }] }),
      role('view', { 'to-edit': 'true' }, [get('pods')]),
    ]);
    expect(clusterRoles.find((r) => r.metadata?.name === 'admin')?.rules).toEqual([get('pods')]);
  });

  it('keeps rules already present (a live export) and reports the ones selectors do not produce', () => {
    const { clusterRoles, handWrittenRules } = resolveAggregation([
      role('agg', {}, [get('configmaps'), get('pods')], { clusterRoleSelectors: [{ matchLabels: { a: 'b' } }] }),
      role('src', { a: 'b' }, [get('pods')]),
    ]);
    expect(clusterRoles[0]!.rules).toEqual([get('configmaps'), get('pods')]);
    expect(handWrittenRules.get('agg')).toEqual([get('configmaps')]);
  });

  it('an aggregated role makes the authorizer allow what its sources allow', async () => {
    const authorizer = createRbacAuthorizer({
      roles: [],
      roleBindings: [],
      clusterRoles: [
        role('agg', {}, undefined, { clusterRoleSelectors: [{ matchExpressions: [{ key: 'tier', operator: 'In', values: ['x'] }] }] }),
        role('src', { tier: 'x' }, [get('pods')]),
      ],
      clusterRoleBindings: [
        {
          metadata: { name: 'b' },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'agg' },
          subjects: [{ kind: 'User', name: 'u' }],
        },
      ],
    });
    expect((await authorizer.authorize({ user: { username: 'u' }, resourceAttributes: { verb: 'get', resource: 'pods' } })).reason).toBe(
      'RBAC: allowed by ClusterRoleBinding "b" of ClusterRole "agg" to User "u"',
    );
  });
});

describe('labelSelectorMatches', () => {
  const labels = { app: 'web', tier: 'front' };
  it.each([
    [{}, true],
    [{ matchLabels: { app: 'web' } }, true],
    [{ matchLabels: { app: 'db' } }, false],
    [{ matchExpressions: [{ key: 'tier', operator: 'In', values: ['front', 'back'] }] }, true],
    [{ matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['front'] }] }, false],
    [{ matchExpressions: [{ key: 'missing', operator: 'NotIn', values: ['x'] }] }, true],
    [{ matchExpressions: [{ key: 'app', operator: 'Exists' }] }, true],
    [{ matchExpressions: [{ key: 'app', operator: 'DoesNotExist' }] }, false],
    [{ matchExpressions: [{ key: 'app', operator: 'In' }] }, undefined],
    [{ matchExpressions: [{ key: 'app', operator: 'Exists', values: ['x'] }] }, undefined],
    [{ matchExpressions: [{ key: 'app', operator: 'Near', values: ['x'] }] }, undefined],
  ])('%j -> %s', (selector, expected) => {
    expect(labelSelectorMatches(selector, labels)).toBe(expected);
  });
});
