// Every shouldFail row of upstream's RBAC authorizer table (rbac_test.go TestAuthorizer), explained:
// the suggested Role (or ClusterRole) and binding, added to that case's RBAC objects, make the same
// question allowed; taking away any one of them does not. Rows name users, groups only (a binding
// to the group), resources in and out of a namespace, subresources and non-resource URLs.
import { describe, expect, it } from 'vitest';
import { createRbacAuthorizer } from '../adapters/local/rbac/index.ts';
import type { RbacRequest } from '../adapters/local/rbac/request.ts';
import { authorizerCases, type RbacTableState, ruleMatchesCases } from '../adapters/local/rbac/testdata/upstream-cases.ts';
import { FactType } from '../admission/explanation.ts';
import type { ClusterRole, ClusterRoleBinding, Role, RoleBinding } from '../api/rbac.ts';
import type { KubeObject } from '../api/types.ts';
import type { AuthorizationAttributes } from '../ports/authorizer.ts';
import { createExplainer } from './index.ts';

const objectsOf = (state: RbacTableState) => ({
  roles: [...(state.roles ?? [])],
  clusterRoles: [...(state.clusterRoles ?? [])],
  roleBindings: [...(state.roleBindings ?? [])],
  clusterRoleBindings: [...(state.clusterRoleBindings ?? [])],
});

function withObjects(state: RbacTableState, objects: readonly KubeObject[]): ReturnType<typeof objectsOf> {
  const next = objectsOf(state);
  for (const object of objects) {
    if (object.kind === 'Role') next.roles.push(object as Role);
    else if (object.kind === 'ClusterRole') next.clusterRoles.push(object as ClusterRole);
    else if (object.kind === 'RoleBinding') next.roleBindings.push(object as RoleBinding);
    else if (object.kind === 'ClusterRoleBinding') next.clusterRoleBindings.push(object as ClusterRoleBinding);
    else throw new Error(`unexpected ${object.kind}`);
  }
  return next;
}

const allowed = async (state: RbacTableState, question: AuthorizationAttributes) =>
  (await createRbacAuthorizer(objectsOf(state)).authorize(question)).decision === 'allow';

const rows = authorizerCases.flatMap((testCase) =>
  testCase.shouldFail.map((question) => ({
    testCase,
    question,
    label: `${testCase.name}: ${JSON.stringify({ user: question.user, ...(question.resourceAttributes ?? question.nonResourceAttributes) })}`,
  })),
);

async function explain(state: RbacTableState, question: AuthorizationAttributes) {
  const authorizer = createRbacAuthorizer(objectsOf(state));
  const answer = await authorizer.authorize(question);
  const explainer = createExplainer({ grants: authorizer.grants });
  return explainer.explain({ facts: [{ type: FactType.Authorization, attributes: question, answer }] }, { mutatingPlugins: [] });
}

describe('every denial of the upstream RBAC table, explained', () => {
  it('covers user, group-only, namespaced, cluster-wide, subresource and non-resource questions', () => {
    expect(rows.length).toBe(14);
    expect(rows.some((r) => r.question.nonResourceAttributes !== undefined && r.question.user.username === undefined)).toBe(true);
    expect(rows.some((r) => r.question.resourceAttributes?.subresource === 'status')).toBe(true);
    expect(rows.some((r) => r.question.resourceAttributes?.namespace === '')).toBe(true);
  });

  it.each(rows)('$label', async ({ testCase, question }) => {
    expect(await allowed(testCase, question)).toBe(false);
    const { objects, lines } = await explain(testCase, question);
    expect(lines[0]).toMatch(/ may not /);
    expect(objects).toHaveLength(2);
    const [role, binding] = objects as [
      KubeObject & { rules: unknown[] },
      KubeObject & { subjects: Array<{ kind: string; name: string }> },
    ];
    // Cluster-wide questions (non-resource URLs, no namespace) need a ClusterRole and ClusterRoleBinding.
    const namespace = question.resourceAttributes?.namespace ?? '';
    expect(role.kind).toBe(namespace === '' ? 'ClusterRole' : 'Role');
    expect(binding.kind).toBe(namespace === '' ? 'ClusterRoleBinding' : 'RoleBinding');
    expect(role.rules).toHaveLength(1);
    const username = question.user.username ?? '';
    expect(binding.subjects).toEqual([
      username === ''
        ? { kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: question.user.groups![0] }
        : { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: username },
    ]);

    expect(await allowed(withObjects(testCase, objects), question)).toBe(true);
    expect(await allowed(withObjects(testCase, [role]), question)).toBe(false);
    expect(await allowed(withObjects(testCase, [binding]), question)).toBe(false);
  });
});

// TestRuleMatches: each rule bound to user "u" cluster-wide; every row it does not match is a denial.
const ruleRows = ruleMatchesCases.flatMap(({ name, rule, rows }) =>
  rows
    .filter(([, matches]) => !matches)
    .map(([request]) => ({
      state: {
        clusterRoles: [{ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'r' }, rules: [rule] }],
        clusterRoleBindings: [
          {
            apiVersion: 'rbac.authorization.k8s.io/v1',
            kind: 'ClusterRoleBinding',
            metadata: { name: 'r' },
            roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'r' },
            subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'u' }],
          },
        ],
      } satisfies RbacTableState,
      question: questionOf(request),
      label: `${name}: ${JSON.stringify(request.resourceRequest ? [request.verb, request.apiGroup, request.resource, request.subresource, request.name] : [request.verb, request.path])}`,
    })),
);

function questionOf(request: RbacRequest): AuthorizationAttributes {
  const user = { username: 'u' };
  if (!request.resourceRequest) return { user, nonResourceAttributes: { verb: request.verb, path: request.path } };
  return {
    user,
    resourceAttributes: {
      verb: request.verb,
      group: request.apiGroup,
      resource: request.resource,
      subresource: request.subresource,
      name: request.name,
      namespace: '',
    },
  };
}

describe('every row of upstream TestRuleMatches that a rule does not match, explained', () => {
  it('has rows', () => {
    expect(ruleRows.length).toBeGreaterThan(30);
  });

  it.each(ruleRows)('$label', async ({ state, question }) => {
    expect(await allowed(state, question)).toBe(false);
    const { objects } = await explain(state, question);
    expect(objects.map((o) => o.kind)).toEqual(['ClusterRole', 'ClusterRoleBinding']);
    expect(await allowed(withObjects(state, objects), question)).toBe(true);
    expect(await allowed(withObjects(state, [objects[0]!]), question)).toBe(false);
    expect(await allowed(withObjects(state, [objects[1]!]), question)).toBe(false);
  });
});

describe('the closest existing grant', () => {
  it('names a rule that grants the resource but not the subresource asked about', async () => {
    const testCase = authorizerCases.find((c) => c.name.startsWith('case 2'))!;
    const { lines, warnings } = await explain(testCase, testCase.shouldFail[0]!);
    const closest =
      'closest existing grant: RoleBinding "/ns1" of ClusterRole "admin" to User "admin" allows * on pods (*), not pods/status';
    expect(lines).toContain(closest);
    expect(warnings[1]).toBe(closest);
  });

  it('names a RoleBinding that allows exactly this, in another namespace', async () => {
    const testCase = authorizerCases.find((c) => c.name.startsWith('case 0'))!;
    const question = testCase.shouldFail[0]!;
    expect(question.resourceAttributes).toMatchObject({ verb: 'GET', namespace: 'ns2' });
    const elsewhere = { ...question, resourceAttributes: { ...question.resourceAttributes!, verb: 'get' } };
    const { lines } = await explain(testCase, elsewhere);
    expect(lines).toContain(
      'closest existing grant: RoleBinding "/ns1" of ClusterRole "admin" to User "admin" allows exactly this, but only in namespace "ns1"',
    );
  });

  it('names a rule that lacks only the verb', async () => {
    const testCase = authorizerCases.find((c) => c.name.startsWith('case 1'))!;
    const { lines } = await explain(testCase, testCase.shouldFail[0]!);
    expect(lines).toContain(
      'closest existing grant: ClusterRoleBinding "" of ClusterRole "non-resource-url-getter" to User "foo" allows get on "/apis", not watch',
    );
  });

  it('is not named when the requester has nothing near', async () => {
    const testCase = authorizerCases.find((c) => c.name.startsWith('case 1'))!;
    const { lines } = await explain(testCase, testCase.shouldFail[2]!);
    expect(lines.some((l) => l.startsWith('closest'))).toBe(false);
  });
});
