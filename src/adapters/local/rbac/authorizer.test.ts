// Ports upstream rbac_test.go TestAuthorizer (every case, every shouldPass/shouldFail row), then
// checks what the table does not: reason wording, evaluation errors, system:masters, no deny,
// order, namespace scoping, service accounts and the subject index at scale.
import { describe, expect, it } from 'vitest';
import type { RoleBinding } from '../../../api/rbac.ts';
import type { AuthorizationAttributes } from '../../../ports/authorizer.ts';
import { createRbacAuthorizer } from './index.ts';
import {
  resourceAttributes as attrs,
  bindToClusterRole,
  bindToRole,
  newClusterRole,
  newClusterRoleBinding,
  newRole,
  newRoleBinding,
  newRule,
  nonResourceAttributes,
} from './testdata/builders.ts';
import { authorizerCases, type RbacTableState } from './testdata/upstream-cases.ts';

type State = RbacTableState;
const authorizerFor = (state: State) =>
  createRbacAuthorizer({
    roles: state.roles ?? [],
    roleBindings: state.roleBindings ?? [],
    clusterRoles: state.clusterRoles ?? [],
    clusterRoleBindings: state.clusterRoleBindings ?? [],
  });

const label = (a: AuthorizationAttributes) =>
  JSON.stringify({ user: a.user.username ?? '', groups: a.user.groups ?? [], ...(a.resourceAttributes ?? a.nonResourceAttributes) });

describe.each(authorizerCases)('TestAuthorizer $name', (testCase) => {
  const authorizer = authorizerFor(testCase);
  it.each(testCase.shouldPass.map((a) => ({ a, l: label(a) })))('allows $l', async ({ a }) => {
    expect((await authorizer.authorize(a)).decision).toBe('allow');
  });
  it.each(testCase.shouldFail.map((a) => ({ a, l: label(a) })))('does not allow $l', async ({ a }) => {
    expect((await authorizer.authorize(a)).decision).not.toBe('allow');
  });
});

const rbac = 'rbac.authorization.k8s.io';
const named = <T extends RoleBinding>(binding: T, name: string): T => ({ ...binding, metadata: { ...binding.metadata, name } });

describe('reasons', () => {
  it('names the ClusterRoleBinding, its ClusterRole and the matching subject', async () => {
    const authorizer = authorizerFor({
      clusterRoles: [newClusterRole('view', newRule('get', '', 'pods', ''))],
      clusterRoleBindings: [named(newClusterRoleBinding('view', 'User:bob', 'Group:viewers', 'User:alice'), 'x')],
    });
    expect(await authorizer.authorize(attrs('alice', 'viewers', 'get', 'pods', '', 'default', ''))).toEqual({
      decision: 'allow',
      reason: 'RBAC: allowed by ClusterRoleBinding "x" of ClusterRole "view" to Group "viewers"',
    });
    expect((await authorizer.authorize(attrs('alice', '', 'get', 'pods', '', '', ''))).reason).toBe(
      'RBAC: allowed by ClusterRoleBinding "x" of ClusterRole "view" to User "alice"',
    );
  });

  it('names a RoleBinding as name/namespace, for a Role or a ClusterRole', async () => {
    const authorizer = authorizerFor({
      roles: [newRole('pod-reader', 'ns-a', newRule('get', '', 'pods', ''))],
      clusterRoles: [newClusterRole('view-secrets', newRule('get', '', 'secrets', ''))],
      roleBindings: [
        named(newRoleBinding('ns-a', 'pod-reader', bindToRole, 'User:alice'), 'read-pods'),
        named(newRoleBinding('ns-a', 'view-secrets', bindToClusterRole, 'User:alice'), 'read-secrets'),
      ],
    });
    expect((await authorizer.authorize(attrs('alice', '', 'get', 'pods', '', 'ns-a', ''))).reason).toBe(
      'RBAC: allowed by RoleBinding "read-pods/ns-a" of Role "pod-reader" to User "alice"',
    );
    expect((await authorizer.authorize(attrs('alice', '', 'get', 'secrets', '', 'ns-a', ''))).reason).toBe(
      'RBAC: allowed by RoleBinding "read-secrets/ns-a" of ClusterRole "view-secrets" to User "alice"',
    );
  });

  it('names a ServiceAccount subject as name/namespace, defaulting to the binding namespace', async () => {
    const binding: RoleBinding = {
      metadata: { name: 'sa-binding', namespace: 'team' },
      roleRef: { apiGroup: rbac, kind: 'ClusterRole', name: 'edit' },
      subjects: [{ kind: 'ServiceAccount', name: 'builder' }],
    };
    const authorizer = authorizerFor({ clusterRoles: [newClusterRole('edit', newRule('*', '*', '*', ''))], roleBindings: [binding] });
    const result = await authorizer.authorize(attrs('system:serviceaccount:team:builder', '', 'create', 'pods', '', 'team', ''));
    expect(result.reason).toBe('RBAC: allowed by RoleBinding "sa-binding/team" of ClusterRole "edit" to ServiceAccount "builder/team"');
  });

  it('denied with nothing to report: no opinion, empty reason, no error', async () => {
    expect(await authorizerFor({}).authorize(attrs('alice', '', 'get', 'pods', '', 'default', ''))).toEqual({
      decision: 'no-opinion',
      reason: '',
    });
  });
});

describe('evaluation errors', () => {
  const missing = {
    clusterRoles: [newClusterRole('view', newRule('get', '', 'pods', ''))],
    clusterRoleBindings: [
      named(newClusterRoleBinding('gone', 'User:alice'), 'broken'),
      named(newClusterRoleBinding('view', 'User:alice'), 'works'),
    ],
    roleBindings: [named(newRoleBinding('ns1', 'missing-role', bindToRole, 'User:alice'), 'rb')],
  };

  it('a missing role does not stop another binding from allowing (and is not reported then)', async () => {
    expect(await authorizerFor(missing).authorize(attrs('alice', '', 'get', 'pods', '', 'ns1', ''))).toEqual({
      decision: 'allow',
      reason: 'RBAC: allowed by ClusterRoleBinding "works" of ClusterRole "view" to User "alice"',
    });
  });

  it('when nothing allows, the resolution errors are the reason, aggregated in visit order', async () => {
    expect(await authorizerFor(missing).authorize(attrs('alice', '', 'delete', 'pods', '', 'ns1', ''))).toEqual({
      decision: 'no-opinion',
      reason:
        'rbac: RBAC: [clusterrole.rbac.authorization.k8s.io "gone" not found, role.rbac.authorization.k8s.io "missing-role" not found]',
    });
    expect((await authorizerFor(missing).authorize(attrs('alice', '', 'delete', 'pods', '', '', ''))).reason).toBe(
      'rbac: RBAC: clusterrole.rbac.authorization.k8s.io "gone" not found',
    );
  });

  it('identical errors are reported once; an unsupported roleRef kind and a Role in a ClusterRoleBinding are errors', async () => {
    const authorizer = authorizerFor({
      clusterRoleBindings: [
        named(newClusterRoleBinding('gone', 'User:alice'), 'a'),
        named(newClusterRoleBinding('gone', 'Group:g'), 'b'),
        { metadata: { name: 'c' }, roleRef: { apiGroup: rbac, kind: 'Role', name: 'r' }, subjects: [{ kind: 'User', name: 'alice' }] },
        { metadata: { name: 'd' }, roleRef: { apiGroup: rbac, kind: 'Thing', name: 'r' }, subjects: [{ kind: 'User', name: 'alice' }] },
      ],
      roles: [newRole('r', 'ns', newRule('*', '*', '*', ''))],
    });
    expect((await authorizer.authorize(attrs('alice', 'g', 'get', 'pods', '', 'ns', ''))).reason).toBe(
      'rbac: RBAC: [clusterrole.rbac.authorization.k8s.io "gone" not found, role.rbac.authorization.k8s.io "r" not found, unsupported role reference kind: "Thing"]',
    );
  });

  it("a no-opinion reason starts with the name the authorizer chain gives RBAC, as a SubjectAccessReview's does; an allow's does not", async () => {
    const authorizer = authorizerFor(missing);
    expect((await authorizer.authorize(attrs('alice', '', 'delete', 'pods', '', '', ''))).reason).toMatch(/^rbac: RBAC: /);
    expect((await authorizer.authorize(attrs('alice', '', 'get', 'pods', '', '', ''))).reason).toMatch(/^RBAC: allowed by /);
  });

  it('the authorizer never returns an error value (upstream RBAC returns a nil error)', async () => {
    const result = await authorizerFor(missing).authorize(attrs('alice', '', 'delete', 'pods', '', 'ns1', ''));
    expect(result.error).toBeUndefined();
  });
});

describe('system:masters', () => {
  it('is allowed everything with an empty reason, before RBAC (even with no RBAC objects)', async () => {
    expect(await authorizerFor({}).authorize(attrs('root', 'system:masters', 'delete', 'nodes', '', '', ''))).toEqual({
      decision: 'allow',
      reason: '',
    });
    expect(await authorizerFor({}).authorize(nonResourceAttributes({ groups: ['system:masters'] }, 'post', '/anything'))).toEqual({
      decision: 'allow',
      reason: '',
    });
  });

  it('can be turned off', async () => {
    const authorizer = createRbacAuthorizer(
      { roles: [], roleBindings: [], clusterRoles: [], clusterRoleBindings: [] },
      { privilegedGroups: [] },
    );
    expect((await authorizer.authorize(attrs('root', 'system:masters', 'get', 'pods', '', '', ''))).decision).toBe('no-opinion');
  });

  it('is a group, not a username', async () => {
    expect((await authorizerFor({}).authorize(attrs('system:masters', '', 'get', 'pods', '', '', ''))).decision).toBe('no-opinion');
  });
});

describe('scoping and subjects', () => {
  const state: State = {
    clusterRoles: [
      newClusterRole('cluster-admin', newRule('*', '*', '*', '*')),
      newClusterRole('view-secrets', newRule('get', '', 'secrets', '')),
    ],
    roles: [newRole('pod-reader', 'ns-a', newRule('get', '', 'pods', ''))],
    clusterRoleBindings: [named(newClusterRoleBinding('cluster-admin', 'Group:admins'), 'admins')],
    roleBindings: [
      named(newRoleBinding('ns-a', 'pod-reader', bindToRole, 'User:alice'), 'a'),
      named(newRoleBinding('ns-a', 'view-secrets', bindToClusterRole, 'User:alice'), 'b'),
    ],
  };
  it.each([
    ['ns-a', 'pods', 'allow'],
    ['ns-a', 'secrets', 'allow'],
    ['ns-b', 'pods', 'no-opinion'],
    ['ns-b', 'secrets', 'no-opinion'],
    ['', 'secrets', 'no-opinion'],
  ])('RoleBindings apply only in their namespace: alice get %s in %j -> %s', async (namespace, resource, decision) => {
    expect((await authorizerFor(state).authorize(attrs('alice', '', 'get', resource, '', namespace, ''))).decision).toBe(decision);
  });

  it('ClusterRoleBindings apply in every namespace and cluster-wide', async () => {
    for (const namespace of ['ns-a', 'ns-b', '']) {
      expect((await authorizerFor(state).authorize(attrs('zed', 'admins', 'delete', 'secrets', '', namespace, ''))).decision).toBe('allow');
    }
  });

  it('non-resource requests see only ClusterRoleBindings', async () => {
    const rb = named(newRoleBinding('ns-a', 'cluster-admin', bindToClusterRole, 'User:alice'), 'rb');
    const authorizer = authorizerFor({ ...state, roleBindings: [rb] });
    expect((await authorizer.authorize(nonResourceAttributes({ username: 'alice' }, 'get', '/healthz'))).decision).toBe('no-opinion');
    expect((await authorizer.authorize(nonResourceAttributes({ username: 'x', groups: ['admins'] }, 'get', '/healthz'))).decision).toBe(
      'allow',
    );
  });

  it('no deny: a narrower rule never takes back what a broader one granted, in either order', async () => {
    const broad = newClusterRole('broad', newRule('*', '*', '*', ''));
    const narrow = newClusterRole('narrow', newRule('get', '', 'secrets', ''));
    const bindings = [named(newClusterRoleBinding('broad', 'User:u'), 'broad'), named(newClusterRoleBinding('narrow', 'User:u'), 'narrow')];
    const forward = await authorizerFor({ clusterRoles: [broad, narrow], clusterRoleBindings: bindings }).authorize(
      attrs('u', '', 'delete', 'secrets', '', 'x', ''),
    );
    const reverse = await authorizerFor({ clusterRoles: [narrow, broad], clusterRoleBindings: [...bindings].reverse() }).authorize(
      attrs('u', '', 'delete', 'secrets', '', 'x', ''),
    );
    expect(forward.decision).toBe('allow');
    expect(reverse.decision).toBe('allow');
  });

  it('the first allowing binding in load order is named', async () => {
    const role = newClusterRole('r', newRule('get', '', 'pods', ''));
    const bindings = [named(newClusterRoleBinding('r', 'Group:g2'), 'first'), named(newClusterRoleBinding('r', 'User:u'), 'second')];
    expect(
      (await authorizerFor({ clusterRoles: [role], clusterRoleBindings: bindings }).authorize(attrs('u', 'g2', 'get', 'pods', '', '', '')))
        .reason,
    ).toContain('"first"');
  });

  it('service accounts: ServiceAccount subjects match the SA username; the SA groups are NOT derived by RBAC', async () => {
    const authorizer = authorizerFor({
      clusterRoles: [newClusterRole('r', newRule('get', '', 'pods', ''))],
      roleBindings: [
        {
          metadata: { name: 'all-sa', namespace: 'ns' },
          roleRef: { apiGroup: rbac, kind: 'ClusterRole', name: 'r' },
          subjects: [{ kind: 'Group', name: 'system:serviceaccounts:ns' }],
        },
        {
          metadata: { name: 'explicit', namespace: 'ns' },
          roleRef: { apiGroup: rbac, kind: 'ClusterRole', name: 'r' },
          subjects: [{ kind: 'ServiceAccount', name: 'other', namespace: 'elsewhere' }],
        },
      ],
      clusterRoleBindings: [
        {
          metadata: { name: 'crb' },
          roleRef: { apiGroup: rbac, kind: 'ClusterRole', name: 'r' },
          subjects: [{ kind: 'ServiceAccount', name: 'nons' }],
        },
      ],
    });
    const sa = 'system:serviceaccount:ns:default';
    expect((await authorizer.authorize(attrs(sa, '', 'get', 'pods', '', 'ns', ''))).decision).toBe('no-opinion');
    expect(
      (
        await authorizer.authorize({
          ...attrs(sa, '', 'get', 'pods', '', 'ns', ''),
          user: { username: sa, groups: ['system:serviceaccounts', 'system:serviceaccounts:ns'] },
        })
      ).decision,
    ).toBe('allow');
    expect((await authorizer.authorize(attrs('system:serviceaccount:elsewhere:other', '', 'get', 'pods', '', 'ns', ''))).decision).toBe(
      'allow',
    );
    // A ServiceAccount subject of a ClusterRoleBinding without a namespace never applies.
    expect((await authorizer.authorize(attrs('system:serviceaccount::nons', '', 'get', 'pods', '', '', ''))).decision).toBe('no-opinion');
    // A User subject spelled as the SA username matches that SA too.
    const byUser = authorizerFor({
      clusterRoles: [newClusterRole('r', newRule('get', '', 'pods', ''))],
      clusterRoleBindings: [named(newClusterRoleBinding('r', `User:${sa}`), 'u')],
    });
    expect((await byUser.authorize(attrs(sa, '', 'get', 'pods', '', 'ns', ''))).decision).toBe('allow');
  });

  it('a "*" user subject is not a wildcard', async () => {
    const authorizer = authorizerFor({
      clusterRoles: [newClusterRole('r', newRule('*', '*', '*', ''))],
      clusterRoleBindings: [newClusterRoleBinding('r', 'User:*')],
    });
    expect((await authorizer.authorize(attrs('anyone', '', 'get', 'pods', '', '', ''))).decision).toBe('no-opinion');
  });
});

describe('subject index with many bindings', () => {
  const count = 20_000;
  const roleBindings: RoleBinding[] = [];
  for (let i = 0; i < count; i++) {
    roleBindings.push(
      named(newRoleBinding(`ns-${i % 100}`, 'edit', bindToClusterRole, `User:user-${i}`, `Group:team-${i % 500}`), `rb-${i}`),
    );
  }
  const authorizer = authorizerFor({ clusterRoles: [newClusterRole('edit', newRule('*', '', 'pods', ''))], roleBindings });

  it('finds the one binding for a user among 20k, and names the earliest allowing binding for a group', async () => {
    expect((await authorizer.authorize(attrs('user-12345', '', 'create', 'pods', '', 'ns-45', ''))).reason).toBe(
      'RBAC: allowed by RoleBinding "rb-12345/ns-45" of ClusterRole "edit" to User "user-12345"',
    );
    expect((await authorizer.authorize(attrs('user-12345', '', 'create', 'pods', '', 'ns-46', ''))).decision).toBe('no-opinion');
    // team-7 has bindings rb-7, rb-507, ...; in ns-7 the earliest is rb-7.
    expect((await authorizer.authorize(attrs('nobody', 'team-7', 'create', 'pods', '', 'ns-7', ''))).reason).toBe(
      'RBAC: allowed by RoleBinding "rb-7/ns-7" of ClusterRole "edit" to Group "team-7"',
    );
  });
});
