// The SubjectAccessReview authorizer through the real @kubernetes/client-node against the
// in-process stand-in API server: what goes on the wire, caching, singleflight, deadlines, and
// how overload, failures and dropped connections are answered.
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  type ClusterAuthorizer,
  type ClusterAuthorizerOptions,
  createClusterAuthorizer,
  subjectAccessReviewSpec,
} from '../../src/adapters/cluster/authorization/authorizer.ts';
import { createRbacAuthorizer } from '../../src/adapters/local/rbac/index.ts';
import { attributesFromSpec } from '../../src/authorization/conversion.ts';
import type { AuthorizationAttributes, AuthorizationResult } from '../../src/ports/authorizer.ts';
import {
  ruleTableAuthorizer,
  type StandInApiServer,
  subjectAccessReviewRouteName as sar,
  startStandInApiServer,
} from '../apiserver/index.ts';
import { ManualClock } from '../support/clock.ts';
import { authorizationRecorder } from '../support/recorders.ts';

const allowPodsGet = {
  matches: (a: AuthorizationAttributes) => a.resourceAttributes?.verb === 'get',
  result: { decision: 'allow', reason: 'RBAC: allowed by ClusterRoleBinding "view"' },
} as const;
const denySecrets = {
  matches: (a: AuthorizationAttributes) => a.resourceAttributes?.resource === 'secrets',
  result: { decision: 'deny', reason: 'secrets are off limits' },
} as const;

function attributes(
  overrides: Partial<AuthorizationAttributes['resourceAttributes']> = {},
  user: AuthorizationAttributes['user'] = { username: 'alice', groups: ['dev'] },
): AuthorizationAttributes {
  return {
    user,
    resourceAttributes: { namespace: 'team-a', verb: 'get', group: '', version: 'v1', resource: 'pods', name: 'web', ...overrides },
  };
}

let api: StandInApiServer | undefined;
let authorizer: ClusterAuthorizer | undefined;
afterEach(async () => {
  await authorizer?.close();
  await api?.close();
  api = undefined;
  authorizer = undefined;
});

async function setUp(options: Partial<ClusterAuthorizerOptions> = {}, rules = [allowPodsGet, denySecrets]) {
  api = await startStandInApiServer({ authorizer: ruleTableAuthorizer(rules) });
  authorizer = createClusterAuthorizer({ kubeConfig: api.kubeConfig, initialBackoffMs: 10, ...options });
  return { api, authorizer };
}

describe('cluster authorizer: what is sent', () => {
  it('passes the identity whole (user, uid, groups in order, extra) and the selectors', async () => {
    const { api, authorizer } = await setUp();
    const user = {
      username: 'system:serviceaccount:ci:deployer',
      uid: '8f0c-uid',
      groups: ['system:serviceaccounts:ci', 'system:serviceaccounts', 'system:authenticated'],
      extra: { 'authentication.kubernetes.io/pod-name': ['runner-1'], 'authentication.kubernetes.io/credential-id': ['JTI=abc', 'second'] },
    };
    const result = await authorizer.authorize({
      user,
      resourceAttributes: {
        namespace: 'ci',
        verb: 'list',
        group: 'apps',
        version: 'v1',
        resource: 'deployments',
        subresource: 'scale',
        name: 'web',
        fieldSelector: { rawSelector: 'metadata.name=web', requirements: [{ key: 'metadata.name', operator: 'In', values: ['web'] }] },
        labelSelector: { requirements: [{ key: 'tier', operator: 'Exists' }] },
      },
    });
    expect(result.decision).toBe('no-opinion');
    expect(api.calls.bodies(sar)).toEqual([
      {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SubjectAccessReview',
        spec: {
          user: 'system:serviceaccount:ci:deployer',
          uid: '8f0c-uid',
          groups: ['system:serviceaccounts:ci', 'system:serviceaccounts', 'system:authenticated'],
          extra: {
            'authentication.kubernetes.io/credential-id': ['JTI=abc', 'second'],
            'authentication.kubernetes.io/pod-name': ['runner-1'],
          },
          resourceAttributes: {
            namespace: 'ci',
            verb: 'list',
            group: 'apps',
            version: 'v1',
            resource: 'deployments',
            subresource: 'scale',
            name: 'web',
            fieldSelector: { rawSelector: 'metadata.name=web', requirements: [{ key: 'metadata.name', operator: 'In', values: ['web'] }] },
            labelSelector: { requirements: [{ key: 'tier', operator: 'Exists' }] },
          },
        },
      },
    ]);
  });

  it('sends non-resource attributes alone', async () => {
    const { api, authorizer } = await setUp();
    await authorizer.authorize({
      user: { username: 'bob', groups: ['system:authenticated'] },
      nonResourceAttributes: { path: '/healthz', verb: 'get' },
    });
    expect(api.calls.bodies(sar)).toEqual([
      {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SubjectAccessReview',
        spec: { user: 'bob', groups: ['system:authenticated'], nonResourceAttributes: { path: '/healthz', verb: 'get' } },
      },
    ]);
  });

  it('reuses TLS connections across calls (client-node alone opens one per request)', async () => {
    const { api, authorizer } = await setUp();
    for (const name of ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']) await authorizer.authorize(attributes({ name }));
    expect(api.calls.count(sar)).toBe(8);
    // undici's pool may keep a second connection warm; what matters is it is not one per call.
    expect(api.connectionCount).toBeLessThanOrEqual(2);
  });

  it("keeps an idle connection past undici's 4-second default, as client-go does", async () => {
    const { api, authorizer } = await setUp();
    await authorizer.authorize(attributes({ name: 'first' }));
    expect(api.connectionCount).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 4_500));
    await authorizer.authorize(attributes({ name: 'second' }));
    expect(api.calls.count(sar)).toBe(2);
    expect(api.connectionCount).toBe(1);
  }, 15_000);
});

describe('cluster authorizer: status mapping', () => {
  // Upstream webhook.go Authorize's switch, plus evaluationError carried as the error.
  it.each<[string, Record<string, unknown>, AuthorizationResult]>([
    ['allowed', { allowed: true, reason: 'ok' }, { decision: 'allow', reason: 'ok' }],
    ['denied', { allowed: false, denied: true, reason: 'no' }, { decision: 'deny', reason: 'no' }],
    ['neither', { allowed: false }, { decision: 'no-opinion', reason: '' }],
    [
      'both',
      { allowed: true, denied: true, reason: 'confused' },
      { decision: 'deny', reason: 'confused', error: 'webhook subject access review returned both allow and deny response' },
    ],
    [
      'evaluation error',
      { allowed: false, reason: 'r', evaluationError: 'role.rbac.authorization.k8s.io "gone" not found' },
      { decision: 'no-opinion', reason: 'r', error: 'role.rbac.authorization.k8s.io "gone" not found' },
    ],
  ])('%s', async (_name, status, expected) => {
    const { api, authorizer } = await setUp();
    api.addRoute({
      name: 'canned subjectaccessreviews',
      method: 'POST',
      pattern: '/apis/authorization.k8s.io/v1/subjectaccessreviews',
      handle: (request, respond) => respond.json(201, { ...(request.body as object), status }),
    });
    expect(await authorizer.authorize(attributes())).toEqual(expected);
  });

  it('asks the server the real question: allow, deny and no opinion from its authorizer', async () => {
    const { authorizer } = await setUp();
    expect(await authorizer.authorize(attributes())).toEqual({ decision: 'allow', reason: 'RBAC: allowed by ClusterRoleBinding "view"' });
    expect(await authorizer.authorize(attributes({ verb: 'delete', resource: 'secrets' }))).toEqual({
      decision: 'deny',
      reason: 'secrets are off limits',
    });
    expect(await authorizer.authorize(attributes({ verb: 'delete' }))).toEqual({ decision: 'no-opinion', reason: '' });
  });
});

describe('cluster authorizer: against the embedded RBAC evaluator behind the stand-in', () => {
  it('is allowed through a group binding and only with the group passed along', async () => {
    const rbac = createRbacAuthorizer({
      roles: [],
      roleBindings: [],
      clusterRoles: [{ metadata: { name: 'pod-reader' }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] }],
      clusterRoleBindings: [
        {
          metadata: { name: 'devs-read-pods' },
          subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'dev' }],
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'pod-reader' },
        },
      ],
    });
    api = await startStandInApiServer({ authorizer: rbac });
    authorizer = createClusterAuthorizer({ kubeConfig: api.kubeConfig });
    const withGroup = await authorizer.authorize(attributes({}, { username: 'alice', groups: ['dev'] }));
    expect(withGroup.decision).toBe('allow');
    expect(withGroup.reason).toMatch(/^RBAC: allowed by ClusterRoleBinding "devs-read-pods"/);
    expect(await authorizer.authorize(attributes({}, { username: 'alice' }))).toEqual({ decision: 'no-opinion', reason: '' });
    expect(await authorizer.authorize(attributes({ verb: 'delete' }, { username: 'alice', groups: ['dev'] }))).toEqual({
      decision: 'no-opinion',
      reason: '',
    });
  });
});

describe('cluster authorizer: caching', () => {
  it('keeps one frozen result for answers that read alike, and apart those that do not', async () => {
    const { authorizer } = await setUp({}, [allowPodsGet, denySecrets]);
    const bob = { username: 'bob', groups: ['dev'] };
    const [a, b, c, d] = [
      await authorizer.authorize(attributes({ name: 'web' })),
      await authorizer.authorize(attributes({ name: 'db' }, bob)),
      await authorizer.authorize(attributes({ resource: 'secrets', verb: 'list' })),
      await authorizer.authorize(attributes({ resource: 'secrets', verb: 'list', name: 'other' }, bob)),
    ];
    expect(a).toEqual({ decision: 'allow', reason: 'RBAC: allowed by ClusterRoleBinding "view"' });
    expect(b).toBe(a); // another identity and object, the same decision and reason
    expect(c).toEqual({ decision: 'deny', reason: 'secrets are off limits' });
    expect(d).toBe(c);
    expect(c).not.toBe(a);
    expect(Object.isFrozen(a) && Object.isFrozen(c)).toBe(true);
    // What the cache hands out later is that same result.
    expect(await authorizer.authorize(attributes({ name: 'db' }, bob))).toBe(a);
  });

  it('answers a repeated review from the cache; a different identity is a different key', async () => {
    const hits: string[] = [];
    const { api, authorizer } = await setUp({
      recorder: authorizationRecorder({ cacheHit: () => void hits.push('hit'), cacheMiss: () => void hits.push('miss') }),
    });
    await authorizer.authorize(attributes());
    await authorizer.authorize(attributes());
    expect(api.calls.count(sar)).toBe(1);
    // Group order is kept as sent, so a reordered list is a different question.
    await authorizer.authorize(attributes({}, { username: 'alice', groups: ['dev', 'ops'] }));
    await authorizer.authorize(attributes({}, { username: 'alice', groups: ['ops', 'dev'] }));
    await authorizer.authorize(attributes({}, { username: 'alice', groups: ['dev'], extra: { scope: ['x'] } }));
    expect(api.calls.count(sar)).toBe(4);
    // extra is a map: its key order is not part of the question.
    await authorizer.authorize(attributes({}, { username: 'carol', extra: { a: ['1'], b: ['2'] } }));
    await authorizer.authorize(attributes({}, { username: 'carol', extra: { b: ['2'], a: ['1'] } }));
    expect(api.calls.count(sar)).toBe(5);
    expect(hits).toEqual(['miss', 'hit', 'miss', 'miss', 'miss', 'miss', 'hit']);
  });

  it('keeps allowed and denied answers for their own TTLs', async () => {
    const clock = new ManualClock();
    const { api, authorizer } = await setUp({ clock, allowedTtlMs: 1_000, deniedTtlMs: 5_000, refreshAheadFraction: 0 });
    const allowed = attributes();
    const denied = attributes({ verb: 'delete', resource: 'secrets' });
    await authorizer.authorize(allowed);
    await authorizer.authorize(denied);
    expect(api.calls.count(sar)).toBe(2);

    clock.advance(999);
    await authorizer.authorize(allowed);
    await authorizer.authorize(denied);
    expect(api.calls.count(sar)).toBe(2);

    clock.advance(1);
    await authorizer.authorize(allowed);
    await authorizer.authorize(denied);
    expect(api.calls.count(sar)).toBe(3);

    clock.advance(4_000);
    expect(await authorizer.authorize(denied)).toMatchObject({ decision: 'deny' });
    expect(api.calls.count(sar)).toBe(4);
  });

  it('caches no-opinion answers for the denied TTL, like upstream', async () => {
    const clock = new ManualClock();
    const { api, authorizer } = await setUp({ clock, allowedTtlMs: 10_000, deniedTtlMs: 100, refreshAheadFraction: 0 });
    const nobody = attributes({ verb: 'patch' });
    await authorizer.authorize(nobody);
    await authorizer.authorize(nobody);
    expect(api.calls.count(sar)).toBe(1);
    clock.advance(100);
    await authorizer.authorize(nobody);
    expect(api.calls.count(sar)).toBe(2);
  });

  it('never caches an error', async () => {
    const { api, authorizer } = await setUp({ maxAttempts: 1 });
    api.inject(sar, { kind: 'server-error' }, { times: 1 });
    expect(await authorizer.authorize(attributes())).toMatchObject({
      decision: 'no-opinion',
      error: 'Internal error occurred: injected failure',
    });
    expect(await authorizer.authorize(attributes())).toMatchObject({ decision: 'allow' });
    expect(api.calls.count(sar)).toBe(2);
  });

  it('skips the cache for oversized requester-controlled attributes', async () => {
    const { api, authorizer } = await setUp();
    const huge = attributes({ name: 'x'.repeat(10_000) });
    await authorizer.authorize(huge);
    await authorizer.authorize(huge);
    expect(api.calls.count(sar)).toBe(2);
  });
});

describe('cluster authorizer: refreshing answers about to expire', () => {
  const refreshes = () => {
    const seen: string[] = [];
    return { seen, recorder: authorizationRecorder({ refreshCompleted: ({ result }) => void seen.push(result) }) };
  };

  it('asks again in the background in the last fifth of the TTL, answering from the cache meanwhile', async () => {
    const clock = new ManualClock();
    const { seen, recorder } = refreshes();
    const { api, authorizer } = await setUp({ clock, allowedTtlMs: 10_000, recorder });
    await authorizer.authorize(attributes());
    clock.advance(7_999);
    await authorizer.authorize(attributes());
    expect(api.calls.count(sar)).toBe(1); // 2,001 ms left: more than a fifth

    api.inject(sar, { kind: 'latency', ms: 100 });
    clock.advance(1);
    const started = performance.now();
    expect(await authorizer.authorize(attributes())).toMatchObject({ decision: 'allow' });
    expect(performance.now() - started).toBeLessThan(100); // served from the cache, not the wire
    // Uses while the refresh is on the wire do not start another one.
    await authorizer.authorize(attributes());
    await expect.poll(() => seen).toEqual(['success']);
    expect(api.calls.count(sar)).toBe(2);

    // The refreshed answer has a whole new TTL: still cached long after the first one expired.
    clock.advance(9_000);
    await authorizer.authorize(attributes());
    expect(api.calls.count(sar)).toBe(2);
  });

  it('replaces the cached answer with what the refresh returned', async () => {
    const clock = new ManualClock();
    let allowed = true;
    const { recorder } = refreshes();
    const flipping = {
      matches: () => true,
      get result() {
        return allowed ? { decision: 'allow', reason: 'yes' } : { decision: 'deny', reason: 'revoked' };
      },
    } as unknown as typeof allowPodsGet;
    const { api, authorizer } = await setUp({ clock, allowedTtlMs: 10_000, deniedTtlMs: 10_000, recorder }, [flipping]);
    expect(await authorizer.authorize(attributes())).toMatchObject({ decision: 'allow' });
    allowed = false;
    clock.advance(9_000);
    expect(await authorizer.authorize(attributes())).toMatchObject({ decision: 'allow' }); // within its TTL
    await expect.poll(() => api.calls.count(sar)).toBe(2);
    await expect.poll(async () => (await authorizer.authorize(attributes())).decision).toBe('deny');
  });

  it('keeps serving the answer until its TTL ends when the refresh fails, then asks in the foreground', async () => {
    const clock = new ManualClock();
    const { seen, recorder } = refreshes();
    const { api, authorizer } = await setUp({ clock, allowedTtlMs: 10_000, maxAttempts: 1, recorder });
    await authorizer.authorize(attributes());
    api.inject(sar, { kind: 'server-error' }, { times: 1 });
    clock.advance(9_000);
    expect(await authorizer.authorize(attributes())).toMatchObject({ decision: 'allow' });
    await expect.poll(() => seen).toEqual(['error']);
    clock.advance(1_000); // expired now: the next use waits for a fresh answer
    expect(await authorizer.authorize(attributes())).toMatchObject({ decision: 'allow' });
    expect(api.calls.count(sar)).toBe(3);
  });

  it('never refreshes an answer that nobody uses near its expiry', async () => {
    const clock = new ManualClock();
    const { api, authorizer } = await setUp({ clock, allowedTtlMs: 10_000 });
    await authorizer.authorize(attributes());
    clock.advance(10_000);
    await new Promise((r) => setTimeout(r, 50));
    expect(api.calls.count(sar)).toBe(1);
  });
});

describe('cluster authorizer: singleflight', () => {
  it('shares one call among identical concurrent reviews', async () => {
    let joins = 0;
    const { api, authorizer } = await setUp({ recorder: authorizationRecorder({ singleflightJoined: () => void joins++ }) });
    api.inject(sar, { kind: 'latency', ms: 150 });
    const results = await Promise.all(Array.from({ length: 10 }, () => authorizer.authorize(attributes())));
    expect(results.every((r) => r.decision === 'allow')).toBe(true);
    expect(api.calls.count(sar)).toBe(1);
    expect(joins).toBe(9);
  });

  it('does not share between different reviews', async () => {
    const { api, authorizer } = await setUp();
    api.inject(sar, { kind: 'latency', ms: 100 });
    await Promise.all([authorizer.authorize(attributes()), authorizer.authorize(attributes({ name: 'other' }))]);
    expect(api.calls.count(sar)).toBe(2);
  });

  it('an impatient caller leaving does not cancel the shared call for the others', async () => {
    const { api, authorizer } = await setUp();
    api.inject(sar, { kind: 'latency', ms: 300 });
    const impatient = authorizer.authorize(attributes(), AbortSignal.timeout(50));
    const patient = authorizer.authorize(attributes(), AbortSignal.timeout(5_000));
    expect(await impatient).toMatchObject({ decision: 'no-opinion', error: expect.stringMatching(/context deadline exceeded$/) });
    expect(await patient).toEqual({ decision: 'allow', reason: 'RBAC: allowed by ClusterRoleBinding "view"' });
    expect(api.calls.count(sar)).toBe(1);
  });
});

describe('cluster authorizer: reviews one admission request may send', () => {
  it('sends at most maxReviewsPerRequest per request signal, then answers no-opinion with why (fail closed)', async () => {
    let limited = 0;
    const { api, authorizer } = await setUp({
      maxReviewsPerRequest: 3,
      recorder: authorizationRecorder({ requestLimited: () => void limited++ }),
    });
    const request = new AbortController().signal;
    const answers = [];
    for (const name of ['a', 'b', 'c', 'd', 'e']) answers.push(await authorizer.authorize(attributes({ name }), request));
    expect(answers.map((a) => a.decision)).toEqual(['allow', 'allow', 'allow', 'no-opinion', 'no-opinion']);
    expect(answers[3]).toEqual({
      decision: 'no-opinion',
      reason: '',
      error: 'too many SubjectAccessReviews for one admission request (more than 3)',
    });
    expect(api.calls.count(sar)).toBe(3);
    expect(limited).toBe(2);
    // Answers at hand cost nothing: the request may still ask what is cached.
    expect((await authorizer.authorize(attributes({ name: 'a' }), request)).decision).toBe('allow');
    // Another request has an allowance of its own.
    expect((await authorizer.authorize(attributes({ name: 'd' }), new AbortController().signal)).decision).toBe('allow');
    expect(api.calls.count(sar)).toBe(4);
  });

  it('lets a request join a review already in flight without counting it', async () => {
    const { api, authorizer } = await setUp({ maxReviewsPerRequest: 1 });
    api.inject(sar, { kind: 'latency', ms: 100 });
    const other = authorizer.authorize(attributes({ name: 'x' }), new AbortController().signal);
    const request = new AbortController().signal;
    const [first, joined] = await Promise.all([
      authorizer.authorize(attributes({ name: 'y' }), request),
      authorizer.authorize(attributes({ name: 'x' }), request),
    ]);
    expect([first.decision, joined.decision, (await other).decision]).toEqual(['allow', 'allow', 'allow']);
    expect(api.calls.count(sar)).toBe(2);
  });
});

describe('cluster authorizer: deadlines and failures', () => {
  it('returns within the caller deadline when the server hangs, and caches nothing', async () => {
    const { api, authorizer } = await setUp();
    api.inject(sar, { kind: 'hang' }, { times: 1 });
    const started = performance.now();
    const result = await authorizer.authorize(attributes(), AbortSignal.timeout(200));
    const elapsed = performance.now() - started;
    expect(result).toEqual({
      decision: 'no-opinion',
      reason: '',
      error: `POST "${api.url}/apis/authorization.k8s.io/v1/subjectaccessreviews": context deadline exceeded`,
    });
    expect(elapsed).toBeGreaterThanOrEqual(190);
    expect(elapsed).toBeLessThan(1_000);
    expect(await authorizer.authorize(attributes())).toMatchObject({ decision: 'allow' });
    expect(api.calls.count(sar)).toBe(2);
  });

  it('bounds a call by its own timeout when the caller gives no signal', async () => {
    const { api, authorizer } = await setUp({ timeoutMs: 150 });
    api.inject(sar, { kind: 'hang' });
    const started = performance.now();
    expect(await authorizer.authorize(attributes())).toMatchObject({
      decision: 'no-opinion',
      error: expect.stringMatching(/context deadline exceeded$/),
    });
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('says "context canceled" when the caller cancels', async () => {
    const { api, authorizer } = await setUp();
    api.inject(sar, { kind: 'hang' });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    expect(await authorizer.authorize(attributes(), controller.signal)).toMatchObject({
      decision: 'no-opinion',
      error: expect.stringMatching(/context canceled$/),
    });
  });

  it('retries a 429 after its Retry-After and answers', async () => {
    const { api, authorizer } = await setUp();
    api.inject(sar, { kind: 'too-many-requests', retryAfterSeconds: 1 }, { times: 1 });
    const started = performance.now();
    expect(await authorizer.authorize(attributes())).toMatchObject({ decision: 'allow' });
    expect(performance.now() - started).toBeGreaterThanOrEqual(950);
    expect(api.calls.count(sar)).toBe(2);
  });

  it('gives up on a persistent 429 after maxAttempts, with the Status message as the error', async () => {
    const outcomes: string[] = [];
    const { api, authorizer } = await setUp({
      maxAttempts: 2,
      clock: new ManualClock(),
      recorder: authorizationRecorder({ requestCompleted: (o) => void outcomes.push(`${o.outcome} ${o.code}`) }),
    });
    api.inject(sar, { kind: 'too-many-requests', retryAfterSeconds: 1 });
    expect(await authorizer.authorize(attributes())).toEqual({
      decision: 'no-opinion',
      reason: '',
      error: 'Too many requests, please try again later.',
    });
    expect(api.calls.count(sar)).toBe(2);
    expect(outcomes).toEqual(['error 429', 'error 429']);
  });

  it('a 429 never outlives the caller deadline', async () => {
    const { api, authorizer } = await setUp();
    api.inject(sar, { kind: 'too-many-requests', retryAfterSeconds: 30 });
    const started = performance.now();
    expect(await authorizer.authorize(attributes(), AbortSignal.timeout(200))).toMatchObject({
      decision: 'no-opinion',
      error: expect.stringMatching(/context deadline exceeded$/),
    });
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(api.calls.count(sar)).toBe(1);
  });

  it('retries a 500 and answers once the server recovers', async () => {
    const { api, authorizer } = await setUp();
    api.inject(sar, { kind: 'server-error', message: 'etcdserver: leader changed' }, { times: 2 });
    expect(await authorizer.authorize(attributes())).toMatchObject({ decision: 'allow' });
    expect(api.calls.count(sar)).toBe(3);
  });

  it('gives up on a persistent 500 with the Status message as the error', async () => {
    const { api, authorizer } = await setUp({ maxAttempts: 3, clock: new ManualClock() });
    api.inject(sar, { kind: 'server-error', message: 'etcdserver: leader changed' });
    expect(await authorizer.authorize(attributes())).toEqual({
      decision: 'no-opinion',
      reason: '',
      error: 'Internal error occurred: etcdserver: leader changed',
    });
    expect(api.calls.count(sar)).toBe(3);
  });

  it('does not retry a 503 that suggests no delay, as upstream', async () => {
    const { api, authorizer } = await setUp();
    api.inject(sar, { kind: 'status', code: 503, message: 'the server is currently unable to handle the request' });
    expect(await authorizer.authorize(attributes())).toEqual({
      decision: 'no-opinion',
      reason: '',
      error: 'the server is currently unable to handle the request',
    });
    expect(api.calls.count(sar)).toBe(1);
  });

  it('retries a dropped connection', async () => {
    const { api, authorizer } = await setUp();
    api.inject(sar, { kind: 'drop-connection' }, { times: 1 });
    expect(await authorizer.authorize(attributes())).toMatchObject({ decision: 'allow' });
    expect(api.calls.count(sar)).toBe(2);
  });

  it('answers no opinion with the network error when the connection keeps dropping', async () => {
    const { api, authorizer } = await setUp({ maxAttempts: 3 });
    api.inject(sar, { kind: 'drop-connection' });
    const result = await authorizer.authorize(attributes());
    expect(result.decision).toBe('no-opinion');
    expect(result.error).toMatch(new RegExp(`^POST "${api.url}/apis/authorization.k8s.io/v1/subjectaccessreviews": .+`));
    expect(api.calls.count(sar)).toBe(3);
  });

  it('answers no opinion when the API server is gone', async () => {
    const { api, authorizer } = await setUp({ maxAttempts: 1 });
    await api.close();
    const result = await authorizer.authorize(attributes(), AbortSignal.timeout(2_000));
    expect(result.decision).toBe('no-opinion');
    expect(result.error).toMatch(/^POST "https:\/\/127\.0\.0\.1:\d+\/apis\/authorization\.k8s\.io\/v1\/subjectaccessreviews": /);
  });
});

describe('cluster authorizer: shutdown', () => {
  it('leaves no sockets or servers open once the authorizer and the server are closed', async () => {
    const { api, authorizer } = await setUp();
    api.inject(sar, { kind: 'latency', ms: 20 });
    await Promise.all([
      authorizer.authorize(attributes()),
      authorizer.authorize(attributes({ name: 'b' })),
      authorizer.authorize(attributes({ name: 'c' })),
    ]);
    await authorizer.close();
    await api.close();
    const networkHandles = () => process.getActiveResourcesInfo().filter((r) => ['TLSWrap', 'TCPWrap', 'TCPServerWrap'].includes(r));
    for (let i = 0; i < 50 && networkHandles().length > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(networkHandles()).toEqual([]);
  });
});

// Upstream TestV1WebhookCache (apiserver plugin/pkg/authorizer/webhook/webhook_v1_test.go), every
// row, in order, against one authorizer whose cache keeps answers "forever". The mock's status
// codes become injected Status faults; its `allow` becomes the stand-in authorizer's answer.
// Upstream's rows send no Retry-After, so the 429 fault sends none either.
describe('cluster authorizer: upstream TestV1WebhookCache', () => {
  let serverAllows = false;
  let shared: { api: StandInApiServer; authorizer: ClusterAuthorizer } | undefined;
  const alice = (extra: Partial<AuthorizationAttributes['resourceAttributes']> = {}) =>
    attributes({ namespace: 'kittensandponies', verb: '', version: '', resource: '', name: '', ...extra }, { username: 'alice' });
  const bob = (extra: Partial<AuthorizationAttributes['resourceAttributes']> = {}) =>
    attributes({ namespace: 'kittensandponies', verb: '', version: '', resource: '', name: '', ...extra }, { username: 'bob' });
  afterAll(async () => {
    await shared?.authorizer.close();
    await shared?.api.close();
  });
  const ridiculous = {
    verb: 'v'.repeat(2000),
    group: 'g'.repeat(2000),
    version: 'a'.repeat(2000),
    resource: 'r'.repeat(2000),
    name: 'n'.repeat(2000),
  };

  it.each<[string, () => AuthorizationAttributes, boolean, number, boolean, boolean, number]>([
    ['server errors retry', () => alice(), false, 500, true, false, 5],
    ['429s retry', () => alice(), false, 429, true, false, 5],
    ['404 doesnt retry', () => alice(), false, 404, true, false, 1],
    ['403 doesnt retry', () => alice(), false, 403, true, false, 1],
    ['401 doesnt retry', () => alice(), false, 401, true, false, 1],
    ['alice successful request', () => alice(), true, 200, false, true, 1],
    ['alice cached request', () => alice(), false, 500, false, true, 0],
    ['bob failed request', () => bob(), false, 500, true, false, 5],
    ['bob unauthorized request', () => bob(), false, 200, false, false, 1],
    ['bob unauthorized cached request', () => bob(), false, 500, false, false, 0],
    ['ridiculous unauthorized request', () => bob(ridiculous), false, 200, false, false, 1],
    ['ridiculous unauthorized request again', () => bob(ridiculous), false, 200, false, false, 1],
    ['ridiculous authorized request', () => alice(ridiculous), true, 200, false, true, 1],
    ['ridiculous authorized request again', () => alice(ridiculous), true, 200, false, true, 1],
  ])('%s', async (_name, attr, allow, statusCode, expectedErr, expectedAuthorized, expectedCalls) => {
    if (shared === undefined) {
      const api = await startStandInApiServer({
        authorizer: ruleTableAuthorizer([{ matches: () => serverAllows, result: { decision: 'allow', reason: '' } }]),
      });
      const authorizer = createClusterAuthorizer({
        kubeConfig: api.kubeConfig,
        clock: new ManualClock(),
        allowedTtlMs: 8_640_000_000,
        deniedTtlMs: 8_640_000_000,
      });
      shared = { api, authorizer };
    }
    const { api, authorizer } = shared;
    api.calls.reset();
    api.clearFaults();
    serverAllows = allow;
    if (statusCode === 429) api.inject(sar, { kind: 'too-many-requests', retryAfterSeconds: 0 });
    else if (statusCode !== 200) api.inject(sar, { kind: 'status', code: statusCode });
    const result = await authorizer.authorize(attr());
    expect(result.error !== undefined).toBe(expectedErr);
    expect(result.decision === 'allow').toBe(expectedAuthorized);
    expect(api.calls.count(sar)).toBe(expectedCalls);
  });
});

describe('cluster authorizer: the spec it sends', () => {
  it('is the spec the SubjectAccessReview endpoint turns into these attributes (a round trip)', () => {
    const resourceAttributes = {
      namespace: 'ns',
      verb: 'patch',
      group: 'apps',
      version: 'v1',
      resource: 'deployments',
      subresource: 'scale',
      name: 'web',
    };
    const spec = { user: 'carol', groups: ['ops'], uid: 'u-2', extra: { team: ['b'] }, resourceAttributes };
    expect(subjectAccessReviewSpec(attributesFromSpec(spec))).toEqual(spec);
  });
});
