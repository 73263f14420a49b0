import { RbacV1Subject, V1ClusterRole, V1ObjectMeta, V1PolicyRule, V1RoleBinding, V1RoleRef } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { projectClusterRole, projectRole, projectRoleBinding } from './rbac-objects.ts';

const raw = {
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRole',
  metadata: {
    name: 'aggregate-view',
    resourceVersion: '42',
    uid: 'u',
    labels: { 'rbac.example.com/aggregate': 'true' },
    annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"huge":true}' },
    managedFields: [{ manager: 'kubectl' }],
  },
  aggregationRule: { clusterRoleSelectors: [{ matchLabels: { a: 'b' } }] },
  rules: [
    { verbs: ['get'], apiGroups: [''], resources: ['pods', 'pods/status'], resourceNames: ['web'] },
    { verbs: ['get'], nonResourceURLs: ['/healthz*'] },
  ],
};

describe('RBAC mirror projections', () => {
  it('keeps what evaluation reads and drops labels, annotations, managed fields and the aggregationRule', () => {
    expect(projectClusterRole(raw)).toEqual({
      metadata: { name: 'aggregate-view', resourceVersion: '42' },
      rules: [
        { verbs: ['get'], apiGroups: [''], resources: ['pods', 'pods/status'], resourceNames: ['web'] },
        { verbs: ['get'], nonResourceURLs: ['/healthz*'] },
      ],
    });
  });

  it('reads a typed client-node model (from LIST) the same as raw JSON (from WATCH)', () => {
    const typed = new V1ClusterRole();
    typed.metadata = Object.assign(new V1ObjectMeta(), { name: 'aggregate-view', resourceVersion: '42', creationTimestamp: new Date(0) });
    typed.rules = raw.rules.map((rule) => Object.assign(new V1PolicyRule(), rule));
    expect(projectClusterRole(typed)).toEqual(projectClusterRole(raw));

    const binding = new V1RoleBinding();
    binding.metadata = Object.assign(new V1ObjectMeta(), { name: 'b', namespace: 'team', resourceVersion: '7' });
    binding.roleRef = Object.assign(new V1RoleRef(), { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'edit' });
    binding.subjects = [
      Object.assign(new RbacV1Subject(), { kind: 'ServiceAccount', name: 'builder', namespace: 'ci' }),
      Object.assign(new RbacV1Subject(), { kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'devs' }),
    ];
    expect(projectRoleBinding(binding)).toEqual({
      metadata: { name: 'b', namespace: 'team', resourceVersion: '7' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'edit' },
      subjects: [
        { kind: 'ServiceAccount', name: 'builder', namespace: 'ci' },
        { kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'devs' },
      ],
    });
  });

  it('copies: changing the source afterwards changes nothing cached', () => {
    const source = structuredClone(raw);
    const projected = projectRole(source);
    source.rules[0]!.verbs.push('delete');
    expect(projected.rules?.[0]?.verbs).toEqual(['get']);
  });

  it.each([
    ['no rules', { metadata: { name: 'r' } }, { metadata: { name: 'r' }, rules: [] }],
    [
      'a rule without verbs',
      { metadata: { name: 'r' }, rules: [{ apiGroups: [''] }] },
      { metadata: { name: 'r' }, rules: [{ verbs: [], apiGroups: [''] }] },
    ],
  ])('%s', (_name, input, expected) => {
    expect(projectRole(input)).toEqual(expected);
  });

  it('a binding without subjects keeps none (it applies to nobody); an empty namespace is none', () => {
    expect(
      projectRoleBinding({
        metadata: { name: 'b', namespace: '' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
      }),
    ).toEqual({
      metadata: { name: 'b' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
    });
  });
});
