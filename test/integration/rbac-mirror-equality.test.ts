// The RBAC mirror against the stand-in API server's SubjectAccessReview. The stand-in holds the RBAC
// objects and answers SubjectAccessReviews with this project's RBAC evaluator over its store (read as
// stored, as kube-apiserver's RBAC authorizer reads its informers); one mirror follows it through real
// LIST and WATCH and answers with the same evaluator over what its informers hold. Every question is
// asked three ways: the mirror alone, SubjectAccessReview alone, and the mirror in front of
// SubjectAccessReview (--authorizer=rbac-mirror). Since both sides share the evaluator, their
// agreement shows that the mirror holds what the store holds and that the composition is right; RBAC
// semantics are checked only where a row carries its own expected answer:
// - the upstream RBAC tables (TestAuthorizer, TestRuleMatches, TestDefaultRuleResolver, TestAppliesTo):
//   the mirror and SubjectAccessReview must both give each row's answer;
// - seeded random states (no expected answers): after the watch events of each new state the mirror
//   answers every question as SubjectAccessReview does, and the composed authorizer returns
//   SubjectAccessReview's answer to the letter for every question the mirror does not allow;
// - every upstream OwnerReferencesPermissionEnforcement row, through the plugin on both authorizers,
//   must give the row's message.
//
// RBAC_EQUALITY_SEED and RBAC_EQUALITY_STATES change the random part (default: seed 26, 60 states of 20 questions).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding } from '../../src/api/rbac.ts';
import { createClusterAuthorizer, type ClusterAuthorizer } from '../../src/adapters/cluster/authorizer.ts';
import { createClusterRestMapper, type ClusterRestMapper } from '../../src/adapters/cluster/rest-mapper.ts';
import { createRbacMirrorAuthorizer, type RbacMirrorAuthorizer } from '../../src/adapters/cluster/rbac-mirror-authorizer.ts';
import { rbacRequestFrom } from '../../src/adapters/local/rbac/request.ts';
import { ruleAllows } from '../../src/adapters/local/rbac/rule-matching.ts';
import type { RbacRequest } from '../../src/adapters/local/rbac/request.ts';
import { appliesToRows, authorizerCases, defaultRuleResolverRows, ruleMatchesCases, staticRoles1, type RbacTableState } from '../../src/adapters/local/rbac/upstream-cases.ts';
import { ownerReferencesPermissionEnforcement } from '../../src/plugins/ownerreferences/index.ts';
import type { AuthorizationAttributes, Authorizer } from '../../src/ports/authorizer.ts';
import { clusterRoleBindingType, clusterRoleType, putRbac, rbacTypes, roleBindingType, roleType, startStandInApiServer, storeRbacAuthorizer, subjectAccessReviewRouteName, type StandInApiServer } from '../apiserver/index.ts';
import { serveDiscovery } from '../apiserver/discovery-routes.ts';
import { loadFixtureClusterState } from '../support/cluster-state.ts';
import { neverReturningRestMapper } from '../support/rest-mappers.ts';
import { rejectionOf as outcome } from '../support/rejections.ts';
import { recordingAuthorizer } from '../support/authorizers.ts';
import { requestContext } from '../support/attributes.ts';
import { allUpstreamCases, attributesFor, expectedMessage } from '../../src/plugins/ownerreferences/upstream-cases.ts';
import { seededRandom } from '../../src/util/seeded-random.ts';
import { randomRbac } from '../support/random-rbac.ts';

const seed = Number(process.env.RBAC_EQUALITY_SEED ?? 26);
const randomStates = Number(process.env.RBAC_EQUALITY_STATES ?? 60);
const questionsPerState = 20;
const rbacGroup = 'rbac.authorization.k8s.io';
const orpeState = loadFixtureClusterState('ownerreferences/cluster-state.yaml');

let api: StandInApiServer;
let mirrored: RbacMirrorAuthorizer;
/** SubjectAccessReview alone, and the one behind the mirror: nothing cached, so no answer outlives its state. */
let sarOnly: ClusterAuthorizer;
let fallback: ClusterAuthorizer;
const uncached = () => createClusterAuthorizer({ kubeConfig: api.kubeConfig, allowedTtlMs: 0, deniedTtlMs: 0 });
let round = 0;

beforeAll(async () => {
  api = await startStandInApiServer({ authorizer: storeRbacAuthorizer, resources: [...rbacTypes] });
  serveDiscovery(api, orpeState.apiResourceLists);
  sarOnly = uncached();
  fallback = uncached();
  const swappable: Authorizer = { authorize: (attributes, signal) => fallback.authorize(attributes, signal) };
  // Rebuilt as soon as the watch events stop (the timing changes no answer: a mirror whose caches
  // have changes its evaluator lacks answers nothing), so hundreds of states load quickly.
  mirrored = createRbacMirrorAuthorizer({ kubeConfig: api.kubeConfig, fallback: swappable, rebuild: { rebuildQuietMs: 5, rebuildMinIntervalMs: 0 } });
  await mirrored.ready();
});
afterAll(async () => {
  await mirrored?.close();
  await Promise.all([sarOnly?.close(), fallback?.close()]);
  await api?.close();
});

/** The state a table row describes, with names for the objects upstream's builders leave unnamed. */
function named(state: RbacTableState): Required<RbacTableState> {
  const name = <T extends Role | RoleBinding>(prefix: string) => (object: T, i: number): T => ({ ...object, metadata: { ...object.metadata, name: object.metadata?.name || `${prefix}-${i}` } });
  return {
    roles: (state.roles ?? []).map(name<Role>('role')),
    clusterRoles: (state.clusterRoles ?? []).map(name<ClusterRole>('clusterrole')),
    roleBindings: (state.roleBindings ?? []).map(name<RoleBinding>('rolebinding')),
    clusterRoleBindings: (state.clusterRoleBindings ?? []).map(name<ClusterRoleBinding>('clusterrolebinding')),
  };
}

const sentinelUser = { username: 'equality-sentinel', groups: [] };
const sentinelQuestion = (name: string, namespace: string): AuthorizationAttributes => ({
  user: sentinelUser,
  resourceAttributes: { verb: 'get', namespace, group: 'sentinel.example.com', resource: 'rounds', name },
});

/**
 * Replaces the stand-in's RBAC objects with the state's, then waits until the mirror has received
 * every resulting watch event: each kind ends with a sentinel object for this round, and a watch
 * delivers one kind's events in order, so once the mirror allows the sentinel questions (which
 * need all four sentinels) it has seen everything before them.
 */
async function load(state: RbacTableState): Promise<void> {
  round += 1;
  for (const type of rbacTypes) for (const object of api.store.list(type)) api.store.delete(type, object.metadata?.namespace ?? '', object.metadata?.name ?? '');
  putRbac(api.store, named(state));
  const sentinelRule = (name: string): PolicyRule => ({ verbs: ['get'], apiGroups: ['sentinel.example.com'], resources: ['rounds'], resourceNames: [name] });
  const subjects = [{ kind: 'User', apiGroup: rbacGroup, name: sentinelUser.username }];
  api.store.put(roleType, { metadata: { name: 'equality-sentinel', namespace: 'equality-sentinel' }, rules: [sentinelRule(`role-${round}`)] });
  api.store.put(clusterRoleType, { metadata: { name: 'equality-sentinel' }, rules: [sentinelRule(`clusterrole-${round}`)] });
  api.store.put(roleBindingType, { metadata: { name: 'equality-sentinel', namespace: 'equality-sentinel' }, roleRef: { apiGroup: rbacGroup, kind: 'Role', name: 'equality-sentinel' }, subjects });
  api.store.put(clusterRoleBindingType, { metadata: { name: 'equality-sentinel' }, roleRef: { apiGroup: rbacGroup, kind: 'ClusterRole', name: 'equality-sentinel' }, subjects });
  const caughtUp = () =>
    typeof mirrored.mirror.evaluate(sentinelQuestion(`role-${round}`, 'equality-sentinel')) === 'object' &&
    typeof mirrored.mirror.evaluate(sentinelQuestion(`clusterrole-${round}`, '')) === 'object';
  for (const deadline = Date.now() + 10_000; !caughtUp(); await new Promise((r) => setTimeout(r, 2))) {
    if (Date.now() > deadline) throw new Error(`the mirror did not catch up with round ${round} within 10 s`);
  }
}

interface Answer {
  question: string;
  /** What the upstream table says, where a table row asked it. */
  expected?: boolean;
  mirrorAllows: boolean;
  subjectAccessReview: string;
  composed: string;
  composedBy: string | undefined;
}

const decisionOf = (result: { decision: string; reason: string; error?: string }) => JSON.stringify([result.decision, result.reason, result.error ?? null]);

/** Each question asked three ways: the mirror alone, SubjectAccessReview alone, and composed. */
async function ask(questions: ReadonlyArray<{ attributes: AuthorizationAttributes; expected?: boolean }>): Promise<Answer[]> {
  return Promise.all(
    questions.map(async ({ attributes, expected }) => {
      const verdict = mirrored.mirror.evaluate(attributes);
      if (verdict === 'not-synced') throw new Error('the mirror fell out of sync during the test');
      const [sar, composed] = await Promise.all([sarOnly.authorize(attributes), mirrored.authorize(attributes)]);
      return {
        question: JSON.stringify(attributes),
        ...(expected === undefined ? {} : { expected }),
        mirrorAllows: typeof verdict === 'object',
        subjectAccessReview: decisionOf(sar),
        composed: decisionOf(composed),
        composedBy: composed.answeredBy,
      };
    }),
  );
}

/**
 * The answers that break the contract, each naming its question. Where several bindings allow,
 * which one a reason names depends on list order, which kube-apiserver does not fix either, so an
 * allow is compared on its decision; an answer the mirror passed on must be SubjectAccessReview's
 * to the letter.
 */
function disagreements(answers: readonly Answer[]): Answer[] {
  return answers.filter((a) => {
    const sarAllows = JSON.parse(a.subjectAccessReview)[0] === 'allow';
    // Either way round: allowing more would let someone in; RBAC is the only authorizer here, so the mirror allows all it allows.
    if (a.mirrorAllows !== sarAllows) return true;
    if (a.expected !== undefined && a.expected !== a.mirrorAllows) return true;
    if (a.composedBy !== (a.mirrorAllows ? 'rbac-mirror' : 'subjectaccessreview')) return true;
    return a.mirrorAllows ? JSON.parse(a.composed)[0] !== 'allow' : a.composed !== a.subjectAccessReview;
  });
}

const toAttributes = (request: RbacRequest, username: string): AuthorizationAttributes =>
  request.resourceRequest
    ? { user: { username }, resourceAttributes: { verb: request.verb, namespace: request.namespace, group: request.apiGroup, resource: request.resource, subresource: request.subresource, name: request.name } }
    : { user: { username }, nonResourceAttributes: { verb: request.verb, path: request.path } };

describe('RBAC mirror and SubjectAccessReview give the upstream RBAC tables\' answers', () => {
  it.each(authorizerCases)('TestAuthorizer $name', async (testCase) => {
    await load(testCase);
    const answers = await ask([...testCase.shouldPass.map((attributes) => ({ attributes, expected: true })), ...testCase.shouldFail.map((attributes) => ({ attributes, expected: false }))]);
    expect(disagreements(answers)).toEqual([]);
  });

  it.each(ruleMatchesCases)('TestRuleMatches $name', async ({ rule, rows }) => {
    await load({
      clusterRoles: [{ metadata: { name: 'rule' }, rules: [rule] }],
      clusterRoleBindings: [{ metadata: { name: 'rule' }, roleRef: { apiGroup: rbacGroup, kind: 'ClusterRole', name: 'rule' }, subjects: [{ kind: 'User', name: 'u' }] }],
    });
    const answers = await ask(rows.map(([request, expected]) => ({ attributes: toAttributes(request, 'u'), expected })));
    expect(disagreements(answers)).toEqual([]);
  });

  it('TestDefaultRuleResolver: every row, asked about every rule of the static roles', async () => {
    await load(staticRoles1);
    const universe = [...staticRoles1.roles, ...staticRoles1.clusterRoles].flatMap((role) => role.rules ?? []);
    const questions = defaultRuleResolverRows.flatMap(({ user, namespace, effectiveRules }) =>
      universe.map((rule) => {
        const concrete = (values: string[] | undefined, instead: string) => (values?.[0] === '*' ? instead : (values?.[0] ?? ''));
        const attributes: AuthorizationAttributes = {
          user,
          resourceAttributes: { verb: concrete(rule.verbs, 'escalate'), namespace, group: concrete(rule.apiGroups, 'example.com'), resource: concrete(rule.resources, 'widgets') },
        };
        return { attributes, expected: effectiveRules.some((effective) => ruleAllows(rbacRequestFrom(attributes), effective)) };
      }),
    );
    expect(questions.some((q) => q.expected)).toBe(true);
    expect(disagreements(await ask(questions))).toEqual([]);
  });

  it.each(appliesToRows)('TestAppliesTo $testCase', async (row) => {
    const everything = { metadata: { name: 'everything' }, rules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }] };
    const binding = { roleRef: { apiGroup: rbacGroup, kind: 'ClusterRole', name: 'everything' }, subjects: row.subjects };
    await load(
      row.namespace === undefined
        ? { clusterRoles: [everything], clusterRoleBindings: [{ metadata: { name: 'subjects' }, ...binding }] }
        : { clusterRoles: [everything], roleBindings: [{ metadata: { name: 'subjects', namespace: row.namespace }, ...binding }] },
    );
    const answers = await ask([{ attributes: { user: row.user, resourceAttributes: { verb: 'get', namespace: row.namespace ?? '', resource: 'pods' } }, expected: row.appliesTo }]);
    expect(disagreements(answers)).toEqual([]);
  });
});

describe(`RBAC mirror follows the store through watch: ${randomStates} random states (seed ${seed}), ${questionsPerState} questions each`, () => {
  it('answers as SubjectAccessReview does over the same objects, and composed passes on what it does not allow', async () => {
    const generator = randomRbac(seededRandom(seed));
    const failures: unknown[] = [];
    let allowedByMirror = 0;
    let asked = 0;
    for (let i = 0; i < randomStates && failures.length === 0; i++) {
      const state = generator.state();
      await load(state);
      const answers = await ask(Array.from({ length: questionsPerState }, () => ({ attributes: generator.question(state) })));
      asked += answers.length;
      allowedByMirror += answers.filter((a) => a.mirrorAllows).length;
      const wrong = disagreements(answers);
      if (wrong.length > 0) failures.push({ state: i, objects: state, wrong });
    }
    expect(failures).toEqual([]);
    // The generator must exercise both sides: a mirror that never allows would agree trivially.
    expect(allowedByMirror).toBeGreaterThan(asked * 0.1);
    expect(allowedByMirror).toBeLessThan(asked * 0.9);
  }, 300_000);
});

describe('RBAC mirror and SubjectAccessReview give the upstream OwnerReferencesPermissionEnforcement messages', () => {
  let mapper: ClusterRestMapper;
  beforeAll(async () => {
    await load(orpeState);
    mapper = createClusterRestMapper({ kubeConfig: api.kubeConfig });
  });
  afterAll(() => mapper.close());

  const run = async (c: (typeof allUpstreamCases)[number], authorizer: Authorizer) => {
    const recorded = recordingAuthorizer(authorizer);
    const context = requestContext(AbortSignal.timeout(10_000));
    const error = await outcome(() => ownerReferencesPermissionEnforcement(recorded, c.hangingRestMapper ? neverReturningRestMapper : mapper).validate(attributesFor(c), context));
    return { message: error?.message, path: context.annotations.path, answeredBy: recorded.results.map((r) => r.answeredBy) };
  };

  it.each(allUpstreamCases)('$name', async (c) => {
    const sarAlone = createClusterAuthorizer({ kubeConfig: api.kubeConfig });
    const viaSar = await run(c, sarAlone);
    await sarAlone.close();
    const before = api.calls.count(subjectAccessReviewRouteName);
    // Cold, as SubjectAccessReview alone was: nothing cached from an earlier row.
    await fallback.close();
    fallback = createClusterAuthorizer({ kubeConfig: api.kubeConfig });
    const viaMirror = await run(c, mirrored);
    const sentByMirror = api.calls.count(subjectAccessReviewRouteName) - before;

    expect(viaSar.message).toBe(expectedMessage(c));
    expect(viaMirror.message).toBe(viaSar.message);
    expect(viaMirror.path).toBe(viaSar.path);
    // Only the questions RBAC does not allow go to SubjectAccessReview.
    expect(sentByMirror).toBe(viaMirror.answeredBy.filter((by) => by === 'subjectaccessreview').length);
    if (c.expect === 'allowed' && viaMirror.answeredBy.length > 0) expect(viaMirror.answeredBy).toContain('rbac-mirror');
  });
});
