import { describe, expect, it } from 'vitest';
import { describeClosestGrant } from '../../../explain/describe.ts';
import type { AuthorizationAttributes } from '../../../ports/authorizer.ts';
import { createRbacAuthorizer } from './authorizer.ts';
import { bindToRole, newRole, newRoleBinding } from './testdata/builders.ts';

const deployer = newRole('deployer', 'team-a', { apiGroups: ['apps'], resources: ['deployments'], verbs: ['get', 'update'] });
const named = newRole('one-config', 'team-a', { apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'], verbs: ['delete'] });
const oldGroup = newRole('legacy', 'team-a', { apiGroups: ['extensions'], resources: ['replicasets'], verbs: ['update'] });
const bindings = ['deployer', 'one-config', 'legacy'].map((role) => ({
  ...newRoleBinding('team-a', role, bindToRole, 'User:dev'),
  metadata: { name: role, namespace: 'team-a' },
}));
const finder = createRbacAuthorizer({
  roles: [deployer, named, oldGroup],
  clusterRoles: [],
  roleBindings: bindings,
  clusterRoleBindings: [],
}).grants;
const ask = (
  verb: string,
  group: string,
  resource: string,
  subresource: string,
  name: string,
  namespace = 'team-a',
): AuthorizationAttributes => ({
  user: { username: 'dev' },
  resourceAttributes: { verb, group, resource, subresource, name, namespace },
});
const closest = (question: AuthorizationAttributes) => {
  const grant = finder.closestGrant(question);
  return grant === undefined ? undefined : describeClosestGrant(grant, question);
};

describe('the closest existing grant', () => {
  it.each([
    [
      ask('update', 'apps', 'deployments', 'finalizers', 'web'),
      'RoleBinding "deployer/team-a" of Role "deployer" to User "dev" allows get,update on deployments (apps), not deployments/finalizers',
    ],
    [
      ask('delete', 'apps', 'deployments', '', 'web'),
      'RoleBinding "deployer/team-a" of Role "deployer" to User "dev" allows get,update on deployments (apps), not delete',
    ],
    [
      ask('delete', 'apps', 'deployments', 'finalizers', 'web'),
      'RoleBinding "deployer/team-a" of Role "deployer" to User "dev" allows get,update on deployments (apps), not delete on deployments/finalizers',
    ],
    [
      ask('delete', '', 'configmaps', '', 'b'),
      'RoleBinding "one-config/team-a" of Role "one-config" to User "dev" allows delete on configmaps named "a", not "b"',
    ],
    [
      ask('update', 'apps', 'replicasets', '', 'rs'),
      'RoleBinding "legacy/team-a" of Role "legacy" to User "dev" allows update on replicasets (extensions), not in API group "apps"',
    ],
    [
      ask('update', 'apps', 'deployments', '', 'web', 'team-b'),
      'RoleBinding "deployer/team-a" of Role "deployer" to User "dev" allows exactly this, but only in namespace "team-a"',
    ],
  ])('%j', (question, expected) => {
    expect(closest(question)).toBe(expected);
  });

  it('is nothing for an unrelated resource, or for someone bound to nothing', () => {
    expect(closest(ask('get', '', 'secrets', '', 's'))).toBeUndefined();
    expect(
      finder.closestGrant({ ...ask('update', 'apps', 'deployments', 'finalizers', 'web'), user: { username: 'stranger' } }),
    ).toBeUndefined();
  });

  it('looks elsewhere only at bindings naming the requester or their groups, and names the first namespace in order', () => {
    const update = { apiGroups: ['apps'], resources: ['deployments'], verbs: ['update'] };
    const bound = (namespace: string, name: string, subject: string) => ({
      ...newRoleBinding(namespace, 'deployer', bindToRole, subject),
      metadata: { name, namespace },
    });
    const grants = createRbacAuthorizer({
      roles: ['team-c', 'team-d', 'team-b'].map((namespace) => newRole('deployer', namespace, update)),
      clusterRoles: [],
      roleBindings: [
        bound('team-d', 'devs', 'Group:devs'),
        bound('team-b', 'other', 'User:someone-else'),
        bound('team-c', 'devs', 'Group:devs'),
      ],
      clusterRoleBindings: [],
    }).grants;
    const question: AuthorizationAttributes = {
      user: { username: 'dev', groups: ['devs'] },
      resourceAttributes: { verb: 'update', group: 'apps', resource: 'deployments', name: 'web', namespace: 'team-e' },
    };
    expect(grants.closestGrant(question)).toMatchObject({
      source: 'RoleBinding "devs/team-c" of Role "deployer" to Group "devs"',
      lacks: [],
      elsewhere: 'team-c',
    });
    expect(grants.closestGrant({ ...question, user: { username: 'dev' } })).toBeUndefined();
  });
});
