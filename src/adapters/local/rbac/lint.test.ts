// lintWarnings(): manifests that are legal but surprising.
import { describe, expect, it } from 'vitest';
import { createRbacAuthorizer, isOverbroadNonResourceURL } from './index.ts';

describe('isOverbroadNonResourceURL', () => {
  it.each([
    ['/healthz*', true],
    ['/api**', true],
    ['/healthz', false],
    ['/healthz/*', false],
    ['/*', false],
    ['*', false],
  ])('%s -> %s', (url, expected) => {
    expect(isOverbroadNonResourceURL(url)).toBe(expected);
  });
});

describe('lintWarnings', () => {
  const authorizer = createRbacAuthorizer({
    clusterRoles: [
      { metadata: { name: 'probes' }, rules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/healthz*', '/readyz/*'] }] },
      {
        metadata: { name: 'agg' },
        aggregationRule: { clusterRoleSelectors: [{ matchLabels: { x: 'y' } }] },
        rules: [{ verbs: ['list'], apiGroups: [''], resources: ['nodes'] }],
      },
      { metadata: { name: 'src', labels: { x: 'y' } }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] },
    ],
    roles: [
      { metadata: { name: 'r', namespace: 'ns' }, rules: [{ verbs: ['get'], nonResourceURLs: ['/metrics'] }] },
      { metadata: { name: 'floating' }, rules: [] },
    ],
    clusterRoleBindings: [
      {
        metadata: { name: 'dangling' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'gone' },
        subjects: [],
      },
      { metadata: { name: 'fine' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'probes' }, subjects: [] },
    ],
    roleBindings: [
      {
        metadata: { name: 'rb', namespace: 'ns' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'absent' },
        subjects: [],
      },
      { metadata: { name: 'nowhere' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' }, subjects: [] },
    ],
  });

  it('lists each problem once, in a fixed order', () => {
    expect(authorizer.lintWarnings()).toEqual([
      'ClusterRole "probes" rule 0: nonResourceURL "/healthz*" matches every path that starts with "/healthz", such as "/healthz-internal"; to match only "/healthz" and the paths below it, list "/healthz" and "/healthz/*"',
      'Role "ns/r" rule 0: nonResourceURL "/metrics" has no effect: non-resource URLs are only granted through ClusterRoleBindings',
      'Role "floating" has no metadata.namespace: no RoleBinding can reference it',
      'ClusterRole "agg" has an aggregationRule and 1 rule(s) its selectors do not produce; the aggregation controller would replace them, but this evaluator keeps them',
      'ClusterRoleBinding "dangling": clusterrole.rbac.authorization.k8s.io "gone" not found; it grants nothing',
      'RoleBinding "ns/rb": role.rbac.authorization.k8s.io "absent" not found; it grants nothing',
      'RoleBinding "nowhere" has no metadata.namespace: it applies in no namespace',
    ]);
  });

  it('a clean state has no warnings', () => {
    expect(createRbacAuthorizer({ roles: [], roleBindings: [], clusterRoles: [], clusterRoleBindings: [] }).lintWarnings()).toEqual([]);
  });
});
