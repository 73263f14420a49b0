// RBAC fidelity against a real kube-apiserver, whose RBAC authorizer is the reference. The RBAC
// objects are written through the API; one RBAC mirror (--authorizer=rbac-mirror) follows everything
// the API server holds, bootstrap policy included, through real LIST and WATCH; SubjectAccessReviews
// are answered by kube-apiserver. Every question is asked of SubjectAccessReview alone, of the mirror
// alone, of the mirror in front of SubjectAccessReview, and of our embedded evaluator:
// - the upstream RBAC tables (TestAuthorizer, TestRuleMatches, TestDefaultRuleResolver, TestAppliesTo):
//   kube-apiserver must give each row's answer; our evaluator over the table's objects alone and the
//   composed authorizer must answer word for word what it answered (decision, reason, evaluation
//   error); the mirror must allow exactly what it allows;
// - seeded random states (no expected answers): the mirror allows exactly what kube-apiserver allows,
//   the composed authorizer returns kube-apiserver's answer for every question the mirror does not
//   allow, and our evaluator over the objects kube-apiserver holds (read with plain LISTs) allows
//   what it allows and denies with its reason;
// - every upstream OwnerReferencesPermissionEnforcement row, through the plugin on SubjectAccessReview
//   alone and on the composed authorizer, must give the row's message; REST mapping comes from the
//   real API server's discovery, which serves every kind the rows name.
//
// What the API refuses is made storable without changing an answer. Upstream's builder fills
// resources and nonResourceURLs in one rule; the API takes the same rule split in two (a Role keeps
// only its resource half, since a Role never answers a non-resource request), and RBAC matches a
// resource request against resources and a non-resource request against URLs alone; our evaluator
// is given the rules as upstream wrote them. Unnamed objects get names. Names that bootstrap policy
// already uses (ClusterRoles "admin", "cluster-admin") are taken over for as long as a state needs
// them and deleted after: no controller manager runs to restore or aggregate them, and no table user
// is bound by bootstrap policy. One TestDefaultRuleResolver row asks for a user with neither name nor
// groups, which no SubjectAccessReview can carry: the mirror and our evaluator answer it, and a test
// shows kube-apiserver refusing the review that would ask it.
//
// The random states keep the generator's system:authenticated and system:serviceaccounts groups: the
// mirror and our evaluator there are given every object kube-apiserver holds, so those questions meet
// the real bootstrap bindings on all sides.
//
// RBAC_EQUALITY_SEED and RBAC_EQUALITY_STATES change the random part (default: seed 26, 60 states of
// 20 questions: 10-15 s of the file's 25 s on two cores while other work shares them).
import { AuthorizationV1Api, CoreV1Api, KubeConfig, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ControlPlane, startControlPlane } from '../../control-plane/control-plane.ts';
import { type ClusterAuthorizer, createClusterAuthorizer } from '../../src/adapters/cluster/authorization/authorizer.ts';
import { createKubeRequests, type KubeRequests } from '../../src/adapters/cluster/client/kube.ts';
import { createRbacMirrorAuthorizer, type RbacMirrorAuthorizer } from '../../src/adapters/cluster/rbac-mirror/rbac-mirror-authorizer.ts';
import { type ClusterRestMapper, createClusterRestMapper } from '../../src/adapters/cluster/rest-mapping/rest-mapper.ts';
import { createRbacAuthorizer } from '../../src/adapters/local/rbac/index.ts';
import { type RbacRequest, rbacRequestFrom } from '../../src/adapters/local/rbac/request.ts';
import { ruleAllows } from '../../src/adapters/local/rbac/rule-matching.ts';
import {
  appliesToRows,
  authorizerCases,
  defaultRuleResolverRows,
  type RbacTableState,
  ruleMatchesCases,
  staticRoles1,
} from '../../src/adapters/local/rbac/testdata/upstream-cases.ts';
import type { ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding } from '../../src/api/rbac.ts';
import type { UserInfo } from '../../src/api/types.ts';
import { ownerReferencesPermissionEnforcement } from '../../src/plugins/ownerreferences/index.ts';
import { allUpstreamCases, attributesFor, expectedMessage } from '../../src/plugins/ownerreferences/testdata/upstream-cases.ts';
import type { AuthorizationAttributes, AuthorizationResult, Authorizer } from '../../src/ports/authorizer.ts';
import type { AuthorizationRecorder } from '../../src/ports/recorders.ts';
import { seededRandom } from '../../src/util/seeded-random.ts';
import { requestContext } from '../support/attributes.ts';
import { recordingAuthorizer } from '../support/authorizers.ts';
import { loadFixtureClusterState } from '../support/cluster-state.ts';
import { randomRbac } from '../support/random-rbac.ts';
import { rejectionOf as outcome } from '../support/rejections.ts';
import { neverReturningRestMapper } from '../support/rest-mappers.ts';
import { describeWithControlPlane } from './real-cluster.ts';

const seed = Number(process.env.RBAC_EQUALITY_SEED ?? 26);
const randomStates = Number(process.env.RBAC_EQUALITY_STATES ?? 60);
const questionsPerState = 20;
const rbacGroup = 'rbac.authorization.k8s.io';
const sentinelNamespace = 'equality-sentinel';
const orpeState = loadFixtureClusterState('ownerreferences/cluster-state.yaml');

type Objects = Required<RbacTableState>;
const noObjects: Objects = { roles: [], roleBindings: [], clusterRoles: [], clusterRoleBindings: [] };

/** The state a table row describes, with names for the objects upstream's builders leave unnamed. */
function named(state: RbacTableState): Objects {
  const name =
    <T extends Role | RoleBinding>(prefix: string) =>
    (object: T, i: number): T => ({ ...object, metadata: { ...object.metadata, name: object.metadata?.name || `${prefix}-${i}` } });
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
    ...(resources.length > 0
      ? [
          {
            verbs: rule.verbs,
            apiGroups: rule.apiGroups ?? [],
            resources,
            ...(rule.resourceNames ? { resourceNames: rule.resourceNames } : {}),
          },
        ]
      : []),
    ...(urls.length > 0 && !namespaced ? [{ verbs: rule.verbs, nonResourceURLs: urls }] : []),
  ];
}
const stored = <T extends Role | ClusterRole>(role: T, namespaced: boolean): T => ({
  ...role,
  rules: (role.rules ?? []).flatMap((rule) => storable(rule, namespaced)),
});

/** A SubjectAccessReview must name a user or a group; kube-apiserver refuses one that names neither. */
const askable = (user: UserInfo) => Boolean(user.username) || (user.groups ?? []).length > 0;

interface Answer {
  decision: string;
  reason: string;
  error: string | null;
}
const answer = (result: AuthorizationResult): Answer => ({ decision: result.decision, reason: result.reason, error: result.error ?? null });

/**
 * kube-apiserver's RBAC authorizer lists bindings in no fixed order, so when several bindings name
 * missing roles its aggregated reason lists them in any order: compared as a set.
 */
function sameAnswer(a: Answer, b: Answer): boolean {
  const parts = (reason: string) => {
    const list = /^(.*RBAC: )\[(.*)\]$/s.exec(reason);
    return list === null ? [reason] : [list[1]!, ...list[2]!.split(', ').sort()];
  };
  return a.decision === b.decision && a.error === b.error && JSON.stringify(parts(a.reason)) === JSON.stringify(parts(b.reason));
}

interface Asked {
  question: string;
  /** What the upstream table says, where a table row asked it. */
  expected?: boolean;
  /** kube-apiserver's answer to a SubjectAccessReview. */
  real: Answer;
  mirrorAllows: boolean;
  composed: Answer;
  composedBy: string | undefined;
  /** Our evaluator, over the objects ask() was given. */
  local?: Answer;
}

describeWithControlPlane("RBAC fidelity: the RBAC mirror, our evaluator and kube-apiserver's RBAC authorizer", () => {
  let controlPlane: ControlPlane;
  let kubeConfig: KubeConfig;
  let rbac: RbacAuthorizationV1Api;
  let core: CoreV1Api;
  let mirrored: RbacMirrorAuthorizer;
  /** SubjectAccessReview alone, and the one behind the mirror: nothing cached, so no answer outlives its state. */
  let sarOnly: ClusterAuthorizer;
  let fallback: ClusterAuthorizer;
  const uncached = () => createClusterAuthorizer({ kubeConfig, allowedTtlMs: 0, deniedTtlMs: 0 });
  /** One connection pool for the test's own writes (client-node alone opens a connection per request). */
  let pool: KubeRequests;
  let round = 0;
  /** What the previous state wrote, for the next to delete or overwrite. */
  let written: Objects = noObjects;
  const namespaces = new Set<string>();

  beforeAll(async () => {
    controlPlane = await startControlPlane();
    kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(controlPlane.kubeconfigYaml);
    rbac = kubeConfig.makeApiClient(RbacAuthorizationV1Api);
    core = kubeConfig.makeApiClient(CoreV1Api);
    pool = createKubeRequests(kubeConfig);
    sarOnly = uncached();
    fallback = uncached();
    const swappable: Authorizer = { authorize: (attributes, signal) => fallback.authorize(attributes, signal) };
    // Rebuilt as soon as the watch events stop (the timing changes no answer: a mirror whose caches
    // have changes its evaluator lacks answers nothing), so states load quickly.
    mirrored = createRbacMirrorAuthorizer({ kubeConfig, fallback: swappable, rebuild: { rebuildQuietMs: 5, rebuildMinIntervalMs: 0 } });
    await mirrored.ready();
  }, 90_000);
  afterAll(async () => {
    await mirrored?.close();
    await Promise.all([sarOnly?.close(), fallback?.close(), pool?.close()]);
    await controlPlane?.stop();
  });

  const gone = (error: unknown) => {
    if ((error as { code?: number }).code !== 404) throw error;
  };
  const exists = (error: unknown) => {
    if ((error as { code?: number }).code !== 409) throw error;
  };
  async function ensureNamespaces(names: Iterable<string>): Promise<void> {
    const missing = [...new Set(names)].filter((name) => !namespaces.has(name));
    await Promise.all(missing.map((name) => core.createNamespace({ body: { metadata: { name } } }, pool.options()).catch(exists)));
    for (const name of missing) namespaces.add(name);
  }
  /** Creates the object, or replaces one of the same name (the previous state's, or bootstrap policy's). */
  async function put(create: () => Promise<unknown>, replace: () => Promise<unknown>): Promise<void> {
    await create().catch(async (error: unknown) => {
      exists(error);
      await replace();
    });
  }
  type Named = { metadata?: { name?: string; namespace?: string }; roleRef?: unknown };
  const key = (o: Named) => `${o.metadata?.namespace ?? ''}/${o.metadata!.name!}`;
  const ref = (o: Named) => ({ name: o.metadata!.name!, namespace: o.metadata!.namespace! });
  const clusterRef = (o: Named) => ({ name: o.metadata!.name! });
  interface KindApi<T> {
    create(o: T): Promise<unknown>;
    replace(o: T): Promise<unknown>;
    remove(o: T): Promise<unknown>;
  }

  /**
   * Writes one kind's next objects over its previous ones, all at once: objects only in the previous
   * state are deleted, the others created or replaced. The API keeps a binding's roleRef immutable,
   * so a binding whose roleRef changes is deleted and created again, and so is someone else's
   * binding of the same name (bootstrap policy's).
   */
  async function writeKind<T extends Named>(previous: readonly T[], next: readonly T[], api: KindApi<T>): Promise<void> {
    const nextKeys = new Set(next.map(key));
    const before = new Map(previous.map((o) => [key(o), o]));
    await Promise.all([
      ...previous.filter((o) => !nextKeys.has(key(o))).map((o) => api.remove(o).catch(gone)),
      ...next.map(async (o) => {
        const old = before.get(key(o));
        const recreate = 'roleRef' in o && (old === undefined || JSON.stringify(old.roleRef) !== JSON.stringify(o.roleRef));
        if (old !== undefined && !recreate) return api.replace(o);
        if (old !== undefined) await api.remove(old).catch(gone);
        return put(
          () => api.create(o),
          recreate
            ? async () => {
                await api.remove(o);
                return api.create(o);
              }
            : () => api.replace(o),
        );
      }),
    ]);
  }

  const sentinelQuestion = (user: string, name: string, namespace: string): AuthorizationAttributes => ({
    user: { username: user, groups: [] },
    resourceAttributes: { verb: 'get', namespace, group: 'sentinel.example.com', resource: 'rounds', name },
  });

  /**
   * Replaces the previous state's objects with this one's, then waits until both kube-apiserver's
   * RBAC authorizer and the mirror have seen them all: each kind ends with a sentinel object for
   * this round, written after every other write of its kind was acknowledged (a Role and a
   * ClusterRole naming this round's resource, bindings naming this round's user), and an informer
   * takes one kind's events in order, so once both sentinel questions are allowed (they need all
   * four sentinels) every earlier write and delete has been seen.
   */
  async function load(state: RbacTableState): Promise<Objects> {
    round += 1;
    const next = named(state);
    const previous = written;
    written = next;
    const options = () => pool.options();
    await ensureNamespaces([sentinelNamespace, ...[...next.roles, ...next.roleBindings].map((o) => o.metadata!.namespace!)]);
    await Promise.all([
      writeKind(
        previous.roles,
        next.roles.map((o) => stored(o, true)),
        {
          create: (o) => rbac.createNamespacedRole({ namespace: o.metadata!.namespace!, body: o as never }, options()),
          replace: (o) => rbac.replaceNamespacedRole({ ...ref(o), body: o as never }, options()),
          remove: (o) => rbac.deleteNamespacedRole(ref(o), options()),
        },
      ),
      writeKind(
        previous.clusterRoles,
        next.clusterRoles.map((o) => stored(o, false)),
        {
          create: (o) => rbac.createClusterRole({ body: o as never }, options()),
          replace: (o) => rbac.replaceClusterRole({ ...clusterRef(o), body: o as never }, options()),
          remove: (o) => rbac.deleteClusterRole(clusterRef(o), options()),
        },
      ),
      writeKind(previous.roleBindings, next.roleBindings, {
        create: (o) => rbac.createNamespacedRoleBinding({ namespace: o.metadata!.namespace!, body: o as never }, options()),
        replace: (o) => rbac.replaceNamespacedRoleBinding({ ...ref(o), body: o as never }, options()),
        remove: (o) => rbac.deleteNamespacedRoleBinding(ref(o), options()),
      }),
      writeKind(previous.clusterRoleBindings, next.clusterRoleBindings, {
        create: (o) => rbac.createClusterRoleBinding({ body: o as never }, options()),
        replace: (o) => rbac.replaceClusterRoleBinding({ ...clusterRef(o), body: o as never }, options()),
        remove: (o) => rbac.deleteClusterRoleBinding(clusterRef(o), options()),
      }),
    ]);

    const user = `equality-sentinel-${round}`;
    const rule = (name: string) => ({ verbs: ['get'], apiGroups: ['sentinel.example.com'], resources: ['rounds'], resourceNames: [name] });
    const subjects = [{ kind: 'User', apiGroup: rbacGroup, name: user }];
    const role = { metadata: { name: 'equality-sentinel', namespace: sentinelNamespace }, rules: [rule(`role-${round}`)] };
    const clusterRole = { metadata: { name: 'equality-sentinel' }, rules: [rule(`clusterrole-${round}`)] };
    const roleBinding = {
      metadata: { name: 'equality-sentinel', namespace: sentinelNamespace },
      roleRef: { apiGroup: rbacGroup, kind: 'Role', name: 'equality-sentinel' },
      subjects,
    };
    const clusterRoleBinding = {
      metadata: { name: 'equality-sentinel' },
      roleRef: { apiGroup: rbacGroup, kind: 'ClusterRole', name: 'equality-sentinel' },
      subjects,
    };
    await Promise.all([
      put(
        () => rbac.createNamespacedRole({ namespace: sentinelNamespace, body: role }, options()),
        () => rbac.replaceNamespacedRole({ ...ref(role), body: role }, options()),
      ),
      put(
        () => rbac.createClusterRole({ body: clusterRole }, options()),
        () => rbac.replaceClusterRole({ ...clusterRef(clusterRole), body: clusterRole }, options()),
      ),
      put(
        () => rbac.createNamespacedRoleBinding({ namespace: sentinelNamespace, body: roleBinding }, options()),
        () => rbac.replaceNamespacedRoleBinding({ ...ref(roleBinding), body: roleBinding }, options()),
      ),
      put(
        () => rbac.createClusterRoleBinding({ body: clusterRoleBinding }, options()),
        () => rbac.replaceClusterRoleBinding({ ...clusterRef(clusterRoleBinding), body: clusterRoleBinding }, options()),
      ),
    ]);
    const questions = [sentinelQuestion(user, `role-${round}`, sentinelNamespace), sentinelQuestion(user, `clusterrole-${round}`, '')];
    const realCaughtUp = async () =>
      (await Promise.all(questions.map((q) => sarOnly.authorize(q)))).every((result) => result.decision === 'allow');
    const mirrorCaughtUp = () => questions.every((q) => typeof mirrored.mirror.evaluate(q) === 'object');
    for (
      const deadline = Date.now() + 20_000;
      !(mirrorCaughtUp() && (await realCaughtUp()));
      await new Promise((resolve) => setTimeout(resolve, 5))
    ) {
      if (Date.now() > deadline) throw new Error(`kube-apiserver's RBAC authorizer or the mirror did not see round ${round} within 20 s`);
    }
    return next;
  }

  /** Each question asked of kube-apiserver, the mirror alone, the composed authorizer and, where given, our evaluator. */
  async function ask(
    questions: ReadonlyArray<{ attributes: AuthorizationAttributes; expected?: boolean }>,
    local?: Objects,
  ): Promise<Asked[]> {
    const evaluator = local === undefined ? undefined : createRbacAuthorizer(local, { aggregation: 'as-stored' });
    return Promise.all(
      questions.map(async ({ attributes, expected }) => {
        const verdict = mirrored.mirror.evaluate(attributes);
        if (verdict === 'not-synced') throw new Error('the mirror fell out of sync during the test');
        const [real, composed] = await Promise.all([sarOnly.authorize(attributes), mirrored.authorize(attributes)]);
        return {
          question: JSON.stringify(attributes),
          ...(expected === undefined ? {} : { expected }),
          real: answer(real),
          mirrorAllows: typeof verdict === 'object',
          composed: answer(composed),
          composedBy: composed.answeredBy,
          ...(evaluator === undefined ? {} : { local: answer(evaluator.evaluate(attributes)) }),
        };
      }),
    );
  }

  /** RBAC never denies, so an allow that is not kube-apiserver's would let someone in, and a missing one would refuse them. */
  const compositionWrong = (a: Asked) =>
    a.mirrorAllows !== (a.real.decision === 'allow') || a.composedBy !== (a.mirrorAllows ? 'rbac-mirror' : 'subjectaccessreview');

  /** Table rows: kube-apiserver gives the row's answer; our evaluator and the composed authorizer give kube-apiserver's, word for word. */
  const tableDisagreements = (answers: readonly Asked[]) =>
    answers.filter(
      (a) =>
        compositionWrong(a) ||
        (a.expected !== undefined && a.expected !== (a.real.decision === 'allow')) ||
        (a.local !== undefined && JSON.stringify(a.local) !== JSON.stringify(a.real)) ||
        JSON.stringify(a.composed) !== JSON.stringify(a.real),
    );

  /**
   * Random states: where several bindings allow, which one a reason names depends on kube-apiserver's
   * list order, so an allow is compared on its decision; an answer the mirror passed on must be
   * kube-apiserver's, and our evaluator's denials kube-apiserver's too.
   */
  const randomDisagreements = (answers: readonly Asked[]) =>
    answers.filter(
      (a) =>
        compositionWrong(a) ||
        (a.mirrorAllows ? a.composed.decision !== 'allow' : !sameAnswer(a.composed, a.real)) ||
        (a.local !== undefined && (a.local.decision === 'allow' ? a.real.decision !== 'allow' : !sameAnswer(a.local, a.real))),
    );

  /** Every RBAC object kube-apiserver holds now (bootstrap policy and sentinels included), read with plain LISTs. */
  async function everything(): Promise<Objects> {
    const [roles, clusterRoles, roleBindings, clusterRoleBindings] = await Promise.all([
      rbac.listRoleForAllNamespaces({}, pool.options()),
      rbac.listClusterRole({}, pool.options()),
      rbac.listRoleBindingForAllNamespaces({}, pool.options()),
      rbac.listClusterRoleBinding({}, pool.options()),
    ]);
    return {
      roles: roles.items,
      clusterRoles: clusterRoles.items,
      roleBindings: roleBindings.items,
      clusterRoleBindings: clusterRoleBindings.items,
    } as Objects;
  }

  const toAttributes = (request: RbacRequest, username: string): AuthorizationAttributes =>
    request.resourceRequest
      ? {
          user: { username },
          resourceAttributes: {
            verb: request.verb,
            namespace: request.namespace,
            group: request.apiGroup,
            resource: request.resource,
            subresource: request.subresource,
            name: request.name,
          },
        }
      : { user: { username }, nonResourceAttributes: { verb: request.verb, path: request.path } };

  describe('the upstream RBAC tables', () => {
    it.each(authorizerCases)('TestAuthorizer $name', async (testCase) => {
      await load(testCase);
      const rows = [
        ...testCase.shouldPass.map((attributes) => ({ attributes, expected: true })),
        ...testCase.shouldFail.map((attributes) => ({ attributes, expected: false })),
      ];
      // Our evaluator is given the rules as upstream wrote them, not as stored.
      expect(tableDisagreements(await ask(rows, named(testCase)))).toEqual([]);
    });

    it.each(ruleMatchesCases)('TestRuleMatches $name', async ({ rule, rows }) => {
      const objects = await load({
        clusterRoles: [{ metadata: { name: 'rule' }, rules: [rule] }],
        clusterRoleBindings: [
          {
            metadata: { name: 'rule' },
            roleRef: { apiGroup: rbacGroup, kind: 'ClusterRole', name: 'rule' },
            subjects: [{ kind: 'User', name: 'u' }],
          },
        ],
      });
      expect(
        tableDisagreements(
          await ask(
            rows.map(([request, expected]) => ({ attributes: toAttributes(request, 'u'), expected })),
            objects,
          ),
        ),
      ).toEqual([]);
    });

    // Each row asked about every rule of the static roles: allowed exactly when one of its effective rules covers it.
    const universe = [...staticRoles1.roles, ...staticRoles1.clusterRoles].flatMap((role) => role.rules ?? []);
    const resolverQuestions = ({ user, namespace, effectiveRules }: (typeof defaultRuleResolverRows)[number]) =>
      universe.map((rule) => {
        const concrete = (values: string[] | undefined, instead: string) => (values?.[0] === '*' ? instead : (values?.[0] ?? ''));
        const attributes: AuthorizationAttributes = {
          user,
          resourceAttributes: {
            verb: concrete(rule.verbs, 'escalate'),
            namespace,
            group: concrete(rule.apiGroups, 'example.com'),
            resource: concrete(rule.resources, 'widgets'),
          },
        };
        return { attributes, expected: effectiveRules.some((effective) => ruleAllows(rbacRequestFrom(attributes), effective)) };
      });
    const resolverRows = defaultRuleResolverRows.map((row, index) => ({
      ...row,
      index,
      described: `${JSON.stringify(row.user)} in ${JSON.stringify(row.namespace)}`,
    }));

    it('TestDefaultRuleResolver: every row a SubjectAccessReview can ask, asked about every rule of the static roles', async () => {
      const objects = await load(staticRoles1);
      const questions = resolverRows.filter((row) => askable(row.user)).flatMap(resolverQuestions);
      expect(questions.some((q) => q.expected)).toBe(true);
      expect(tableDisagreements(await ask(questions, objects))).toEqual([]);
    });

    for (const row of resolverRows.filter((r) => !askable(r.user))) {
      // A request always reaches authorization with a user (system:anonymous at least), so the row has no cluster counterpart.
      it(`TestDefaultRuleResolver row ${row.index} (${row.described}): the mirror and our evaluator give the row's answers`, async () => {
        const objects = await load(staticRoles1);
        const evaluator = createRbacAuthorizer(objects, { aggregation: 'as-stored' });
        const wrong = resolverQuestions(row).filter(({ attributes, expected }) => {
          const verdict = mirrored.mirror.evaluate(attributes);
          return (
            verdict === 'not-synced' ||
            (typeof verdict === 'object') !== expected ||
            (evaluator.evaluate(attributes).decision === 'allow') !== expected
          );
        });
        expect(wrong).toEqual([]);
      });
      it(`TestDefaultRuleResolver row ${row.index} (${row.described}) has no kube-apiserver counterpart: the API refuses a SubjectAccessReview that names neither a user nor a group`, async () => {
        const authorization = kubeConfig.makeApiClient(AuthorizationV1Api);
        const refused = await authorization
          .createSubjectAccessReview({ body: { spec: { resourceAttributes: { verb: 'get', resource: 'pods' } } } })
          .then(
            () => undefined,
            (error: unknown) => error as { code?: number; body?: string },
          );
        expect(refused?.code).toBe(422);
        expect(refused?.body).toContain('at least one of user or group must be specified');
      });
    }

    it.each(appliesToRows)('TestAppliesTo $testCase', async (row) => {
      const everything = { metadata: { name: 'everything' }, rules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }] };
      const binding = { roleRef: { apiGroup: rbacGroup, kind: 'ClusterRole', name: 'everything' }, subjects: row.subjects };
      const objects = await load(
        row.namespace === undefined
          ? { clusterRoles: [everything], clusterRoleBindings: [{ metadata: { name: 'subjects' }, ...binding }] }
          : { clusterRoles: [everything], roleBindings: [{ metadata: { name: 'subjects', namespace: row.namespace }, ...binding }] },
      );
      const answers = await ask(
        [
          {
            attributes: { user: row.user, resourceAttributes: { verb: 'get', namespace: row.namespace ?? '', resource: 'pods' } },
            expected: row.appliesTo,
          },
        ],
        objects,
      );
      expect(tableDisagreements(answers)).toEqual([]);
    });
  });

  describe(`${randomStates} random states (seed ${seed}), ${questionsPerState} questions each`, () => {
    it('the mirror allows what kube-apiserver allows, the composed authorizer passes on the rest, and our evaluator over the same objects answers as kube-apiserver', async () => {
      const generator = randomRbac(seededRandom(seed));
      const failures: unknown[] = [];
      let allowedByMirror = 0;
      let asked = 0;
      for (let i = 0; i < randomStates && failures.length === 0; i++) {
        const state = generator.state();
        await load(state);
        const answers = await ask(
          Array.from({ length: questionsPerState }, () => ({ attributes: generator.question(state) })),
          await everything(),
        );
        asked += answers.length;
        allowedByMirror += answers.filter((a) => a.mirrorAllows).length;
        const wrong = randomDisagreements(answers);
        if (wrong.length > 0) failures.push({ state: i, objects: state, wrong });
      }
      expect(failures).toEqual([]);
      // The generator must exercise both sides: a mirror that never allows would agree trivially.
      expect(allowedByMirror).toBeGreaterThan(asked * 0.1);
      expect(allowedByMirror).toBeLessThan(asked * 0.9);
    }, 300_000);
  });

  describe('the upstream OwnerReferencesPermissionEnforcement rows', () => {
    let mapper: ClusterRestMapper;
    beforeAll(async () => {
      await load(orpeState);
      mapper = createClusterRestMapper({ kubeConfig });
      await mapper.ready();
    });
    afterAll(() => mapper?.close());

    const run = async (c: (typeof allUpstreamCases)[number], authorizer: Authorizer) => {
      const recorded = recordingAuthorizer(authorizer);
      const context = requestContext(AbortSignal.timeout(10_000));
      const error = await outcome(() =>
        ownerReferencesPermissionEnforcement(recorded, c.hangingRestMapper ? neverReturningRestMapper : mapper).validate(
          attributesFor(c),
          context,
        ),
      );
      return { message: error?.message, path: context.annotations.path, answeredBy: recorded.results.map((r) => r.answeredBy) };
    };
    /** Counts the SubjectAccessReviews an authorizer put on the wire (each one kube-apiserver answered). */
    const countingSent = () => {
      const counter = { sent: 0 };
      const recorder: AuthorizationRecorder = {
        cacheHit() {},
        cacheMiss() {},
        singleflightJoined() {},
        refreshCompleted() {},
        requestLimited() {},
        requestCompleted: () => void counter.sent++,
      };
      return { counter, recorder };
    };

    it.each(allUpstreamCases)('$name', async (c) => {
      const sarAlone = createClusterAuthorizer({ kubeConfig });
      const viaSar = await run(c, sarAlone);
      await sarAlone.close();
      // Cold, as SubjectAccessReview alone was: nothing cached from an earlier row.
      const { counter, recorder } = countingSent();
      await fallback.close();
      fallback = createClusterAuthorizer({ kubeConfig, recorder });
      const viaMirror = await run(c, mirrored);

      expect(viaSar.message).toBe(expectedMessage(c));
      expect(viaMirror.message).toBe(viaSar.message);
      expect(viaMirror.path).toBe(viaSar.path);
      // Only the questions RBAC does not allow go to SubjectAccessReview.
      expect(counter.sent).toBe(viaMirror.answeredBy.filter((by) => by === 'subjectaccessreview').length);
      if (c.expect === 'allowed' && viaMirror.answeredBy.length > 0) expect(viaMirror.answeredBy).toContain('rbac-mirror');
    });
  });
});
