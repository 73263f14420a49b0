import { describe, expect, it } from 'vitest';
import type { AuthorizationAttributes } from '../ports/authorizer.ts';
import { minimalGrants, objectName } from './grant.ts';
import { bindingSubject } from './subject.ts';

const user = { username: 'demo-user', groups: ['system:authenticated'] };
const ask = (resourceAttributes: NonNullable<AuthorizationAttributes['resourceAttributes']>): AuthorizationAttributes => ({
  user,
  resourceAttributes,
});
const subject = bindingSubject(user)!;

describe('minimalGrants', () => {
  it('one namespaced question: a Role with exactly that rule, a RoleBinding to the user, and the kubectl commands for both', () => {
    const [grant, ...rest] = minimalGrants(
      [
        ask({
          verb: 'update',
          namespace: 'team-a',
          group: 'apps',
          version: 'v1',
          resource: 'deployments',
          subresource: 'finalizers',
          name: 'web',
        }),
      ],
      subject,
    );
    expect(rest).toEqual([]);
    expect(grant!.role).toEqual({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'update-deployments-finalizers-web', namespace: 'team-a' },
      rules: [{ apiGroups: ['apps'], resources: ['deployments/finalizers'], resourceNames: ['web'], verbs: ['update'] }],
    });
    expect(grant!.binding).toEqual({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'update-deployments-finalizers-web-demo-user', namespace: 'team-a' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'update-deployments-finalizers-web' },
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'demo-user' }],
    });
    expect(grant!.commands).toEqual([
      'kubectl create role update-deployments-finalizers-web -n team-a --verb=update --resource=deployments.apps/finalizers --resource-name=web',
      'kubectl create rolebinding update-deployments-finalizers-web-demo-user -n team-a --role=update-deployments-finalizers-web --user=demo-user',
    ]);
  });

  it('a question without a namespace: a ClusterRole and a ClusterRoleBinding', () => {
    const [grant] = minimalGrants(
      [ask({ verb: 'update', namespace: '', group: '', resource: 'nodes', subresource: 'finalizers', name: 'node1' })],
      subject,
    );
    expect(grant!.role.kind).toBe('ClusterRole');
    expect(grant!.role.metadata).toEqual({ name: 'update-nodes-finalizers-node1' });
    expect(grant!.binding).toMatchObject({
      kind: 'ClusterRoleBinding',
      metadata: { name: 'update-nodes-finalizers-node1-demo-user' },
      roleRef: { kind: 'ClusterRole' },
    });
    expect(grant!.commands).toEqual([
      'kubectl create clusterrole update-nodes-finalizers-node1 --verb=update --resource=nodes/finalizers --resource-name=node1',
      'kubectl create clusterrolebinding update-nodes-finalizers-node1-demo-user --clusterrole=update-nodes-finalizers-node1 --user=demo-user',
    ]);
  });

  it('names of one resource share a rule; versions do not matter to RBAC; other resources get their own Role', () => {
    const grants = minimalGrants(
      [
        ask({
          verb: 'update',
          namespace: 'ns',
          group: 'autoscaling',
          version: 'v2',
          resource: 'horizontalpodautoscalers',
          subresource: 'finalizers',
          name: 'a',
        }),
        ask({
          verb: 'update',
          namespace: 'ns',
          group: 'autoscaling',
          version: 'v1',
          resource: 'horizontalpodautoscalers',
          subresource: 'finalizers',
          name: 'a',
        }),
        ask({
          verb: 'update',
          namespace: 'ns',
          group: 'autoscaling',
          version: 'v2',
          resource: 'horizontalpodautoscalers',
          subresource: 'finalizers',
          name: 'b',
        }),
        ask({ verb: 'delete', namespace: 'ns', group: '', resource: 'pods', name: 'p' }),
      ],
      subject,
    );
    expect(grants.map((g) => g.role.rules)).toEqual([
      [{ apiGroups: ['autoscaling'], resources: ['horizontalpodautoscalers/finalizers'], resourceNames: ['a', 'b'], verbs: ['update'] }],
      [{ apiGroups: [''], resources: ['pods'], resourceNames: ['p'], verbs: ['delete'] }],
    ]);
    expect(grants[0]!.commands![0]).toBe(
      'kubectl create role update-horizontalpodautoscalers-finalizers-2-names -n ns --verb=update --resource=horizontalpodautoscalers.autoscaling/finalizers --resource-name=a --resource-name=b',
    );
  });

  it('a question about no particular name gets no resourceNames (and covers named questions of the same kind)', () => {
    const [grant] = minimalGrants(
      [ask({ verb: 'create', namespace: 'ns', resource: 'pods', name: 'x' }), ask({ verb: 'create', namespace: 'ns', resource: 'pods' })],
      subject,
    );
    expect(grant!.role.rules).toEqual([{ apiGroups: [''], resources: ['pods'], verbs: ['create'] }]);
  });

  it('binds a service account as a ServiceAccount subject, and a nameless request through its group', () => {
    const sa = bindingSubject({ username: 'system:serviceaccount:ci:builder', groups: ['system:serviceaccounts'] })!;
    const [grant] = minimalGrants([ask({ verb: 'delete', namespace: 'ci', resource: 'configmaps', name: 'c' })], sa);
    expect(grant!.binding.subjects).toEqual([{ kind: 'ServiceAccount', name: 'builder', namespace: 'ci' }]);
    expect(grant!.commands![1]).toBe(
      'kubectl create rolebinding delete-configmaps-c-ci-builder -n ci --role=delete-configmaps-c --serviceaccount=ci:builder',
    );

    const group = bindingSubject({ groups: ['system:authenticated', 'platform'] })!;
    expect(group).toEqual({ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'platform' });
    expect(minimalGrants([ask({ verb: 'get', namespace: '', resource: 'nodes' })], group)[0]!.commands![1]).toBe(
      'kubectl create clusterrolebinding get-nodes-group-platform --clusterrole=get-nodes --group=platform',
    );
  });

  it('non-resource URLs: a ClusterRole rule with nonResourceURLs; kubectl only for the verbs and URLs it accepts', () => {
    const [get] = minimalGrants([{ user, nonResourceAttributes: { verb: 'get', path: '/healthz' } }], subject);
    expect(get!.role.rules).toEqual([{ nonResourceURLs: ['/healthz'], verbs: ['get'] }]);
    expect(get!.commands![0]).toBe('kubectl create clusterrole get-healthz --verb=get --non-resource-url=/healthz');
    const [watch] = minimalGrants([{ user, nonResourceAttributes: { verb: 'watch', path: '/apis' } }], subject);
    expect(watch!.commands).toBeUndefined();
  });

  it('quotes what the shell would expand, and leaves out commands kubectl would read differently', () => {
    const [star] = minimalGrants(
      [ask({ verb: 'update', namespace: 'ns', group: '*', resource: '*', subresource: 'finalizers', name: '*' })],
      subject,
    );
    expect(star!.role.rules).toEqual([{ apiGroups: ['*'], resources: ['*/finalizers'], resourceNames: ['*'], verbs: ['update'] }]);
    expect(star!.commands![0]).toMatch(/ '--resource=\*\.\*\/finalizers' '--resource-name=\*'$/);
    const [comma] = minimalGrants([ask({ verb: 'get,list', namespace: 'ns', resource: 'pods' })], subject);
    expect(comma!.commands).toBeUndefined();
    const [spaced] = minimalGrants([ask({ verb: 'get', namespace: 'ns', resource: 'pods', name: "it's" })], subject);
    expect(spaced!.commands![0]).toContain(`'--resource-name=it'\\''s'`);
  });
});

describe('objectName', () => {
  it.each([
    [['update', 'deployments/finalizers', 'web'], 'update-deployments-finalizers-web'],
    [['get', 'pods', 'my.pod_1'], 'get-pods-my-pod-1'],
    [['GET', 'Pods'], /^get-pods-[0-9a-f]{8}$/],
    [['update', '*/finalizers', '*'], /^update-finalizers-[0-9a-f]{8}$/],
    [['get', 'x'.repeat(100)], /^get-x{50}-[0-9a-f]{8}$/],
    [['*'], /^grant-[0-9a-f]{8}$/],
  ])('%j -> %s', (parts, expected) => {
    const name = objectName(parts);
    if (typeof expected === 'string') expect(name).toBe(expected);
    else expect(name).toMatch(expected);
    expect(name.length).toBeLessThanOrEqual(63);
  });

  it('keeps grants that differ only in what the name cannot show apart', () => {
    expect(objectName(['GET', 'pods'])).not.toBe(objectName(['get', 'pods']));
  });
});
