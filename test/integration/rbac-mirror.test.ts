// The RBAC mirror against the stand-in API server, through the real client-node: informers on the
// four RBAC resources (paged LIST, then WATCH), readiness, allow answered locally with no
// SubjectAccessReview, everything else sent to SubjectAccessReview exactly as --authorizer=sar
// sends it (cached), events followed, and SAR-only while a cache relists after its watch dropped.
import { afterEach, describe, expect, it } from 'vitest';
import { type ClusterAuthorizer, createClusterAuthorizer } from '../../src/adapters/cluster/authorization/authorizer.ts';
import { createRbacMirrorAuthorizer, type RbacMirrorAuthorizer } from '../../src/adapters/cluster/rbac-mirror/rbac-mirror-authorizer.ts';
import type { AuthorizationAttributes } from '../../src/ports/authorizer.ts';
import {
  clusterRoleBindingType,
  clusterRoleType,
  rbacTypes,
  roleBindingType,
  roleType,
  type StandInApiServer,
  startStandInApiServer,
  storeRbacAuthorizer,
  subjectAccessReviewRouteName,
} from '../apiserver/index.ts';

const rbacGroup = 'rbac.authorization.k8s.io';
let api: StandInApiServer | undefined;
let sar: ClusterAuthorizer | undefined;
let mirrored: RbacMirrorAuthorizer | undefined;
afterEach(async () => {
  await mirrored?.close();
  await sar?.close();
  await api?.close();
  mirrored = sar = api = undefined;
});

async function setUp(options: { listPageSize?: number; before?: (api: StandInApiServer) => void } = {}) {
  const server = await startStandInApiServer({ resources: [...rbacTypes], authorizer: storeRbacAuthorizer });
  api = server;
  server.store.put(clusterRoleType, {
    metadata: { name: 'edit' },
    rules: [{ verbs: ['*'], apiGroups: ['apps'], resources: ['deployments', 'replicasets/finalizers'] }],
  });
  server.store.put(roleBindingType, {
    metadata: { name: 'alice-edit', namespace: 'team' },
    roleRef: { apiGroup: rbacGroup, kind: 'ClusterRole', name: 'edit' },
    subjects: [{ kind: 'User', apiGroup: rbacGroup, name: 'alice' }],
  });
  options.before?.(server);
  sar = createClusterAuthorizer({ kubeConfig: server.kubeConfig });
  const recorded = { questions: [] as string[] };
  mirrored = createRbacMirrorAuthorizer({
    kubeConfig: server.kubeConfig,
    fallback: sar,
    backoff: { initialMs: 20, maxMs: 100 },
    ...(options.listPageSize ? { listPageSize: options.listPageSize } : {}),
    recorder: { question: (outcome) => recorded.questions.push(outcome) },
  });
  return { api: server, mirrored, recorded };
}

const finalize = (user: string, namespace: string, name = 'web-1'): AuthorizationAttributes => ({
  user: { username: user, groups: ['system:authenticated'] },
  resourceAttributes: { verb: 'update', namespace, group: 'apps', version: 'v1', resource: 'replicasets', subresource: 'finalizers', name },
});
const sarCalls = () => api!.calls.count(subjectAccessReviewRouteName);

describe('the RBAC mirror on the stand-in API server', () => {
  it('is not ready until all four caches have listed, and says which has not', async () => {
    const { api, mirrored } = await setUp({
      before: (stand) => stand.inject('list clusterrolebindings', { kind: 'status', code: 403 }, { times: 2 }),
    });
    await expect
      .poll(() => mirrored.notReadyReasons(), { timeout: 5000, interval: 20 })
      .toEqual([expect.stringMatching(/^clusterrolebindings cache \(RBAC mirror\) has not synced \(last error: HTTP 403: /)]);
    expect(mirrored.mirror.inSync).toBe(false);
    await mirrored.ready();
    expect(mirrored.notReadyReasons()).toEqual([]);
    expect(mirrored.mirror.inSync).toBe(true);
    for (const type of rbacTypes) expect(api.calls.count(`list ${type.resource}`)).toBeGreaterThanOrEqual(1);
  });

  it('answers an allow locally with the reason RBAC gives, and sends no SubjectAccessReview', async () => {
    const { mirrored, recorded } = await setUp();
    await mirrored.ready();
    for (let i = 0; i < 5; i++) {
      expect(
        await mirrored.authorize({
          ...finalize('alice', 'team'),
          user: { username: 'alice', uid: `uid-${i}`, groups: ['system:authenticated'] },
        }),
      ).toEqual({
        decision: 'allow',
        reason: 'RBAC: allowed by RoleBinding "alice-edit/team" of ClusterRole "edit" to User "alice"',
        answeredBy: 'rbac-mirror',
      });
    }
    expect(sarCalls()).toBe(0);
    expect(recorded.questions).toEqual(['allowed', 'allowed', 'allowed', 'allowed', 'allowed']);
  });

  it('system:masters is allowed locally, with no reason, as kube-apiserver answers it', async () => {
    const { mirrored } = await setUp();
    await mirrored.ready();
    expect(
      await mirrored.authorize({
        user: { username: 'root', groups: ['system:masters'] },
        nonResourceAttributes: { verb: 'post', path: '/anything' },
      }),
    ).toEqual({
      decision: 'allow',
      reason: '',
      answeredBy: 'rbac-mirror',
    });
    expect(sarCalls()).toBe(0);
  });

  it('sends what RBAC does not allow to SubjectAccessReview, once per cache lifetime', async () => {
    const { mirrored, recorded } = await setUp();
    await mirrored.ready();
    const elsewhere = finalize('alice', 'other');
    expect(await mirrored.authorize(elsewhere)).toEqual({ decision: 'no-opinion', reason: '', answeredBy: 'subjectaccessreview' });
    expect(await mirrored.authorize(elsewhere)).toEqual({ decision: 'no-opinion', reason: '', answeredBy: 'subjectaccessreview' });
    expect(sarCalls()).toBe(1);
    expect(recorded.questions).toEqual(['not-allowed', 'not-allowed']);
  });

  it('follows watch events: a new binding allows without a relist, a deleted one stops allowing', async () => {
    const { api, mirrored } = await setUp();
    await mirrored.ready();
    const lists = api.calls.count('list rolebindings');
    api.store.put(roleBindingType, {
      metadata: { name: 'bob-edit', namespace: 'team' },
      roleRef: { apiGroup: rbacGroup, kind: 'ClusterRole', name: 'edit' },
      subjects: [{ kind: 'User', name: 'bob' }],
    });
    await expect
      .poll(() => mirrored.mirror.evaluate(finalize('bob', 'team')), { timeout: 5000, interval: 10 })
      .toMatchObject({ allowed: { decision: 'allow' } });
    api.store.delete(roleBindingType, 'team', 'alice-edit');
    await expect.poll(() => mirrored.mirror.evaluate(finalize('alice', 'team')), { timeout: 5000, interval: 10 }).toBe('not-allowed');
    // A ClusterRole's rules changing changes what its bindings grant.
    api.store.put(clusterRoleType, {
      metadata: { name: 'edit' },
      rules: [{ verbs: ['get'], apiGroups: ['apps'], resources: ['deployments'] }],
    });
    await expect.poll(() => mirrored.mirror.evaluate(finalize('bob', 'team')), { timeout: 5000, interval: 10 }).toBe('not-allowed');
    expect(api.calls.count('list rolebindings')).toBe(lists);
    expect(sarCalls()).toBe(0);
  });

  it('reads an aggregated ClusterRole as stored: rules its selector would match but the controller has not written do not allow', async () => {
    const { api, mirrored } = await setUp({
      before: (stand) => {
        stand.store.put(clusterRoleType, {
          metadata: { name: 'finalizers', labels: { 'example.com/aggregate-to-agg': 'true' } },
          rules: [{ verbs: ['update'], apiGroups: ['*'], resources: ['*/finalizers'] }],
        });
        stand.store.put(clusterRoleType, {
          metadata: { name: 'agg' },
          aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'example.com/aggregate-to-agg': 'true' } }] },
          rules: [],
        });
        stand.store.put(clusterRoleBindingType, {
          metadata: { name: 'carol-agg' },
          roleRef: { apiGroup: rbacGroup, kind: 'ClusterRole', name: 'agg' },
          subjects: [{ kind: 'User', name: 'carol' }],
        });
      },
    });
    await mirrored.ready();
    expect(mirrored.mirror.evaluate(finalize('carol', 'team'))).toBe('not-allowed');
    // The aggregation controller writes the rules: now RBAC allows, and so does the mirror.
    api.store.put(clusterRoleType, {
      metadata: { name: 'agg' },
      aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'example.com/aggregate-to-agg': 'true' } }] },
      rules: [{ verbs: ['update'], apiGroups: ['*'], resources: ['*/finalizers'] }],
    });
    await expect
      .poll(() => mirrored.mirror.evaluate(finalize('carol', 'team')), { timeout: 5000, interval: 10 })
      .toMatchObject({ allowed: { decision: 'allow' } });
  });

  it('lists in pages and holds every object', async () => {
    const { api, mirrored } = await setUp({
      listPageSize: 7,
      before: (stand) => {
        for (let i = 0; i < 50; i++) {
          stand.store.put(roleType, { metadata: { name: `r-${i}`, namespace: `ns-${i % 5}` }, rules: [] });
          stand.store.put(roleBindingType, {
            metadata: { name: `rb-${i}`, namespace: `ns-${i % 5}` },
            roleRef: { apiGroup: rbacGroup, kind: 'Role', name: `r-${i}` },
            subjects: [{ kind: 'User', name: `u-${i}` }],
          });
        }
      },
    });
    await mirrored.ready();
    expect(mirrored.mirror.counts()).toEqual({ roles: 50, clusterroles: 1, rolebindings: 51, clusterrolebindings: 0 });
    // 51 RoleBindings at 7 a page: 8 pages.
    expect(api.calls.count('list rolebindings')).toBe(8);
  });

  it('while a dropped watch cannot be resumed and the relist fails, every question goes to SubjectAccessReview; once relisted, the mirror answers again', async () => {
    const { api, mirrored, recorded } = await setUp();
    await mirrored.ready();
    await expect
      .poll(() => rbacTypes.every((type) => api.calls.count(`watch ${type.resource}`) > 0), { timeout: 5000, interval: 10 })
      .toBe(true);
    expect(mirrored.mirror.evaluate(finalize('alice', 'team'))).toMatchObject({ allowed: { decision: 'allow' } });
    const liftWatch = api.inject('watch rolebindings', { kind: 'server-error', code: 500 });
    const liftList = api.inject('list rolebindings', { kind: 'server-error', code: 503 });
    // A binding removed while the watch is down: the mirror must not keep allowing from its stale cache.
    expect(api.store.dropWatches()).toBe(4);
    api.store.delete(roleBindingType, 'team', 'alice-edit');
    await expect.poll(() => mirrored.mirror.inSync, { timeout: 5000, interval: 10 }).toBe(false);
    recorded.questions.length = 0;
    const before = sarCalls();
    expect(await mirrored.authorize(finalize('alice', 'team', 'stale'))).toMatchObject({
      decision: 'no-opinion',
      answeredBy: 'subjectaccessreview',
    });
    expect(sarCalls()).toBe(before + 1);
    expect(recorded.questions).toEqual(['not-synced']);
    // Readiness stays: the first LIST happened, and SubjectAccessReview still answers correctly.
    expect(mirrored.notReadyReasons()).toEqual([]);
    liftWatch();
    liftList();
    await expect.poll(() => mirrored.mirror.inSync, { timeout: 5000, interval: 10 }).toBe(true);
    expect(mirrored.mirror.evaluate(finalize('alice', 'team'))).toBe('not-allowed');
  });
});
