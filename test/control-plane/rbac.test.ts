// Upstream's RBAC authorizer table (rbac_test.go TestAuthorizer) replayed against a real kube-apiserver:
// each case's roles and bindings are written through the API, every row is asked as a
// SubjectAccessReview by our cluster authorizer (through client-node), and kube-apiserver's RBAC
// authorizer — the reference — must give the row's answer. Beside it our embedded evaluator, over
// the same objects, must answer word for word what the real one answered: decision, reason and
// evaluation error.
//
// Upstream's builder fills resources and nonResourceURLs in one rule, which its unit test never
// validates and the API refuses; what the API stores is the same rule split in two (and a Role keeps
// only its resource half, since a Role's rules never answer a non-resource request). RBAC matches a
// resource request against resources and a non-resource request against URLs, so the split changes no
// answer; our evaluator is given the rules as upstream wrote them.
import { KubeConfig, RbacAuthorizationV1Api, CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startControlPlane, type ControlPlane } from '../../control-plane/control-plane.ts';
import { createClusterAuthorizer, type ClusterAuthorizer } from '../../src/adapters/cluster/authorizer.ts';
import { createRbacAuthorizer } from '../../src/adapters/local/rbac/index.ts';
import { authorizerCases, type RbacTableState } from '../../src/adapters/local/rbac/upstream-cases.ts';
import type { ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding } from '../../src/api/rbac.ts';
import type { AuthorizationAttributes, AuthorizationResult } from '../../src/ports/authorizer.ts';
import { describeWithControlPlane } from './real-cluster.ts';

const rbacGroup = 'rbac.authorization.k8s.io';

describeWithControlPlane('RBAC: upstream\'s TestAuthorizer table through a real kube-apiserver, and our evaluator beside it', () => {
  let controlPlane: ControlPlane;
  let authorizer: ClusterAuthorizer;
  let rbac: RbacAuthorizationV1Api;
  let core: CoreV1Api;
  let round = 0;
  /** What the previous case wrote, to delete before the next. */
  let written: Required<RbacTableState> = { roles: [], roleBindings: [], clusterRoles: [], clusterRoleBindings: [] };

  beforeAll(async () => {
    controlPlane = await startControlPlane();
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(controlPlane.kubeconfigYaml);
    // Nothing cached: every row is a SubjectAccessReview kube-apiserver answers.
    authorizer = createClusterAuthorizer({ kubeConfig, allowedTtlMs: 0, deniedTtlMs: 0 });
    rbac = kubeConfig.makeApiClient(RbacAuthorizationV1Api);
    core = kubeConfig.makeApiClient(CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: 'rbac-sentinel' } } });
  }, 90_000);
  afterAll(async () => {
    await authorizer?.close();
    await controlPlane?.stop();
  });

  /** Upstream's builders leave some objects unnamed; the API needs names. */
  function named(state: RbacTableState): Required<RbacTableState> {
    const name = <T extends Role | RoleBinding>(prefix: string) => (object: T, i: number): T => ({ ...object, metadata: { ...object.metadata, name: object.metadata?.name || `${prefix}-${i}` } });
    return {
      roles: (state.roles ?? []).map(name<Role>('role')),
      clusterRoles: (state.clusterRoles ?? []).map(name<ClusterRole>('clusterrole')),
      roleBindings: (state.roleBindings ?? []).map(name<RoleBinding>('rolebinding')),
      clusterRoleBindings: (state.clusterRoleBindings ?? []).map(name<ClusterRoleBinding>('clusterrolebinding')),
    };
  }

  /** A rule as the API accepts it: a resource rule, a non-resource rule, or both apart. */
  function storable(rule: PolicyRule, namespaced: boolean): PolicyRule[] {
    const present = (values: string[] | undefined) => (values ?? []).filter((value) => value !== '');
    const resources = present(rule.resources);
    const urls = present(rule.nonResourceURLs);
    return [
      ...(resources.length > 0 ? [{ verbs: rule.verbs, apiGroups: rule.apiGroups ?? [], resources, ...(rule.resourceNames ? { resourceNames: rule.resourceNames } : {}) }] : []),
      ...(urls.length > 0 && !namespaced ? [{ verbs: rule.verbs, nonResourceURLs: urls }] : []),
    ];
  }
  const stored = <T extends Role | ClusterRole>(role: T, namespaced: boolean): T => ({ ...role, rules: (role.rules ?? []).flatMap((rule) => storable(rule, namespaced)) });

  const sentinel = { username: 'rbac-sentinel', groups: [] };
  const sentinelQuestion = (name: string, namespace: string): AuthorizationAttributes => ({
    user: sentinel,
    resourceAttributes: { verb: 'get', namespace, group: 'sentinel.example.com', resource: 'rounds', name },
  });

  /**
   * Replaces the previous case's objects with this one's, then waits until kube-apiserver's RBAC
   * authorizer sees them all: each kind ends with a sentinel object for this round, and its informer
   * takes one kind's events in order, so once both sentinel questions are allowed (they need all four
   * sentinels) every earlier write and delete has been seen. Names that bootstrap policy already uses
   * (upstream's tables name a ClusterRole "admin") are replaced.
   */
  async function load(state: Required<RbacTableState>): Promise<void> {
    round += 1;
    const gone = (error: unknown) => {
      if ((error as { code?: number }).code !== 404) throw error;
    };
    for (const binding of written.roleBindings) await rbac.deleteNamespacedRoleBinding({ name: binding.metadata!.name!, namespace: binding.metadata!.namespace! }).catch(gone);
    for (const binding of written.clusterRoleBindings) await rbac.deleteClusterRoleBinding({ name: binding.metadata!.name! }).catch(gone);
    for (const role of written.roles) await rbac.deleteNamespacedRole({ name: role.metadata!.name!, namespace: role.metadata!.namespace! }).catch(gone);
    for (const role of written.clusterRoles) await rbac.deleteClusterRole({ name: role.metadata!.name! }).catch(gone);
    const namespaces = new Set([...state.roles, ...state.roleBindings].map((o) => o.metadata!.namespace!));
    for (const name of namespaces) {
      await core.createNamespace({ body: { metadata: { name } } }).catch((error: { code?: number }) => {
        if (error.code !== 409) throw error;
      });
    }
    const upsert = async (create: () => Promise<unknown>, replace: () => Promise<unknown>) => {
      await create().catch(async (error: { code?: number }) => {
        if (error.code !== 409) throw error;
        await replace();
      });
    };
    for (const role of state.clusterRoles) {
      const body = stored(role, false) as never;
      await upsert(() => rbac.createClusterRole({ body }), () => rbac.replaceClusterRole({ name: role.metadata!.name!, body }));
    }
    for (const role of state.roles) await rbac.createNamespacedRole({ namespace: role.metadata!.namespace!, body: stored(role, true) as never });
    for (const binding of state.clusterRoleBindings) {
      await upsert(() => rbac.createClusterRoleBinding({ body: binding as never }), () => rbac.replaceClusterRoleBinding({ name: binding.metadata!.name!, body: binding as never }));
    }
    for (const binding of state.roleBindings) await rbac.createNamespacedRoleBinding({ namespace: binding.metadata!.namespace!, body: binding as never });
    written = state;

    const rule = (name: string) => ({ verbs: ['get'], apiGroups: ['sentinel.example.com'], resources: ['rounds'], resourceNames: [name] });
    const subjects = [{ kind: 'User', apiGroup: rbacGroup, name: sentinel.username }];
    await upsert(
      () => rbac.createNamespacedRole({ namespace: 'rbac-sentinel', body: { metadata: { name: 'sentinel' }, rules: [rule(`role-${round}`)] } }),
      () => rbac.replaceNamespacedRole({ name: 'sentinel', namespace: 'rbac-sentinel', body: { metadata: { name: 'sentinel' }, rules: [rule(`role-${round}`)] } }),
    );
    await upsert(
      () => rbac.createClusterRole({ body: { metadata: { name: 'rbac-sentinel' }, rules: [rule(`clusterrole-${round}`)] } }),
      () => rbac.replaceClusterRole({ name: 'rbac-sentinel', body: { metadata: { name: 'rbac-sentinel' }, rules: [rule(`clusterrole-${round}`)] } }),
    );
    // Bindings are written anew each round so their kinds' informers also end on a sentinel event.
    await rbac.deleteNamespacedRoleBinding({ name: 'sentinel', namespace: 'rbac-sentinel' }).catch(gone);
    await rbac.createNamespacedRoleBinding({ namespace: 'rbac-sentinel', body: { metadata: { name: 'sentinel' }, roleRef: { apiGroup: rbacGroup, kind: 'Role', name: 'sentinel' }, subjects } });
    await rbac.deleteClusterRoleBinding({ name: 'rbac-sentinel' }).catch(gone);
    await rbac.createClusterRoleBinding({ body: { metadata: { name: 'rbac-sentinel' }, roleRef: { apiGroup: rbacGroup, kind: 'ClusterRole', name: 'rbac-sentinel' }, subjects } });
    const caughtUp = async () =>
      (await authorizer.authorize(sentinelQuestion(`role-${round}`, 'rbac-sentinel'))).decision === 'allow' &&
      (await authorizer.authorize(sentinelQuestion(`clusterrole-${round}`, ''))).decision === 'allow';
    for (const deadline = Date.now() + 20_000; !(await caughtUp()); await new Promise((resolve) => setTimeout(resolve, 50))) {
      if (Date.now() > deadline) throw new Error(`kube-apiserver's RBAC authorizer did not see round ${round} within 20 s`);
    }
  }

  const answer = (result: AuthorizationResult) => ({ decision: result.decision, reason: result.reason, error: result.error ?? null });

  it.each(authorizerCases.map((kase) => [kase.name, kase] as const))('%s', async (_name, kase) => {
    const state = named(kase);
    await load(state);
    const local = createRbacAuthorizer(state);
    const rows = [...kase.shouldPass.map((attributes) => ({ attributes, allowed: true })), ...kase.shouldFail.map((attributes) => ({ attributes, allowed: false }))];
    for (const { attributes, allowed } of rows) {
      const real = answer(await authorizer.authorize(attributes));
      expect(real.decision === 'allow', `kube-apiserver on ${JSON.stringify(attributes)}`).toBe(allowed);
      expect(answer(await local.authorize(attributes)), `our evaluator on ${JSON.stringify(attributes)}`).toEqual(real);
    }
  });
});
