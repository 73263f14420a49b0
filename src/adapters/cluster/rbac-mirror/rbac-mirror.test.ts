// When the mirror may answer: never before its evaluator is built, never from an evaluator older
// than a change its caches have received, never while a cache is out of sync; and how often a
// stream of changes rebuilds it. The caches here are plain arrays (the informers themselves are
// exercised against the stand-in API server in test/integration/rbac-mirror.test.ts).
import { describe, expect, it } from 'vitest';
import type { RoleBinding } from '../../../api/rbac.ts';
import type { AuthorizationAttributes } from '../../../ports/authorizer.ts';
import type { RbacObjects } from './rbac-informers.ts';
import { createRbacMirror } from './rbac-mirror.ts';

const rbacGroup = 'rbac.authorization.k8s.io';
const binding = (user: string): RoleBinding => ({
  metadata: { name: user, namespace: 'team' },
  roleRef: { apiGroup: rbacGroup, kind: 'ClusterRole', name: 'view' },
  subjects: [{ kind: 'User', name: user }],
});
const getPods = (user: string): AuthorizationAttributes => ({
  user: { username: user },
  resourceAttributes: { verb: 'get', namespace: 'team', resource: 'pods' },
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function caches() {
  const objects: RbacObjects = {
    roles: [],
    clusterRoles: [{ metadata: { name: 'view' }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] }],
    roleBindings: [binding('alice')],
    clusterRoleBindings: [],
  };
  return {
    objects,
    inSync: true,
    counts: () => ({
      roles: objects.roles.length,
      clusterroles: objects.clusterRoles.length,
      rolebindings: objects.roleBindings.length,
      clusterrolebindings: objects.clusterRoleBindings.length,
    }),
    objectsCalls: 0,
  };
}

function mirrorOver(state: ReturnType<typeof caches>, rebuilds: number[] = []) {
  return createRbacMirror({
    informers: {
      objects: () => {
        state.objectsCalls += 1;
        return { ...state.objects, roleBindings: [...state.objects.roleBindings] };
      },
      counts: state.counts,
      get inSync() {
        return state.inSync;
      },
    },
    rebuildQuietMs: 10,
    rebuildMaxDelayMs: 60,
    rebuildMinIntervalMs: 30,
    rebuilt: ({ durationSeconds }) => rebuilds.push(durationSeconds),
  });
}

describe('the RBAC mirror', () => {
  it('answers nothing before its evaluator is built, then answers allow with the reason RBAC gives', async () => {
    const state = caches();
    const mirror = mirrorOver(state);
    expect(mirror.evaluate(getPods('alice'))).toBe('not-synced');
    expect(mirror.built).toBe(false);
    mirror.invalidate();
    await mirror.whenBuilt();
    expect(mirror.evaluate(getPods('alice'))).toEqual({
      allowed: {
        decision: 'allow',
        reason: 'RBAC: allowed by RoleBinding "alice/team" of ClusterRole "view" to User "alice"',
        answeredBy: 'rbac-mirror',
      },
    });
    expect(mirror.evaluate(getPods('bob'))).toBe('not-allowed');
  });

  it('after a change, answers nothing from the old evaluator: a revoked binding is never allowed again', async () => {
    const state = caches();
    const mirror = mirrorOver(state);
    mirror.invalidate();
    await mirror.whenBuilt();
    state.objects.roleBindings = [];
    mirror.invalidate();
    expect(mirror.evaluate(getPods('alice'))).toBe('not-synced');
    expect(mirror.inSync).toBe(false);
    await expect.poll(() => mirror.evaluate(getPods('alice')), { timeout: 2000, interval: 2 }).toBe('not-allowed');
  });

  it('names the closest grant from the evaluator it answers with, and none while out of date', async () => {
    const state = caches();
    const mirror = mirrorOver(state);
    const deletePods = (user: string): AuthorizationAttributes => ({
      user: { username: user },
      resourceAttributes: { verb: 'delete', namespace: 'team', resource: 'pods' },
    });
    expect(mirror.closestGrant(deletePods('alice'))).toBeUndefined();
    mirror.invalidate();
    await mirror.whenBuilt();
    expect(mirror.closestGrant(deletePods('alice'))).toEqual({
      source: 'RoleBinding "alice/team" of ClusterRole "view" to User "alice"',
      rule: { verbs: ['get'], apiGroups: [''], resources: ['pods'] },
      lacks: ['verb'],
    });
    expect(mirror.closestGrant(deletePods('bob'))).toBeUndefined();
    // A revoked binding is not named while the rebuild is pending, nor after it.
    state.objects.roleBindings = [];
    mirror.invalidate();
    expect(mirror.closestGrant(deletePods('alice'))).toBeUndefined();
    await expect.poll(() => mirror.inSync, { timeout: 2000, interval: 2 }).toBe(true);
    expect(mirror.closestGrant(deletePods('alice'))).toBeUndefined();
    state.objects.roleBindings = [binding('alice')];
    mirror.invalidate();
    await expect.poll(() => mirror.inSync, { timeout: 2000, interval: 2 }).toBe(true);
    state.inSync = false;
    expect(mirror.closestGrant(deletePods('alice'))).toBeUndefined();
  });

  it('answers nothing while a cache is out of sync, and builds nothing from it', async () => {
    const state = caches();
    const mirror = mirrorOver(state);
    mirror.invalidate();
    await mirror.whenBuilt();
    state.inSync = false;
    expect(mirror.evaluate(getPods('alice'))).toBe('not-synced');
    const calls = state.objectsCalls;
    mirror.invalidate();
    await sleep(80);
    expect(state.objectsCalls).toBe(calls);
    // The cache lists again: its LIST is a change, and the mirror rebuilds from it.
    state.inSync = true;
    mirror.invalidate();
    await expect
      .poll(() => mirror.evaluate(getPods('alice')), { timeout: 2000, interval: 2 })
      .toMatchObject({ allowed: { decision: 'allow' } });
  });

  it('a burst of changes is one rebuild; a stream of them rebuilds at most once per rebuildMinIntervalMs, and keeps rebuilding while it lasts', async () => {
    const state = caches();
    const rebuilds: number[] = [];
    const mirror = mirrorOver(state, rebuilds);
    for (let i = 0; i < 1000; i++) mirror.invalidate();
    await mirror.whenBuilt();
    await sleep(30);
    expect(rebuilds).toHaveLength(1);

    // 40 bursts of 10 changes, a few milliseconds apart: at most one rebuild per rebuildMinIntervalMs, however they are spaced.
    let changes = 0;
    const started = performance.now();
    for (let burst = 0; burst < 40; burst++) {
      for (let i = 0; i < 10; i++) {
        state.objects.roleBindings.push(binding(`user-${changes++}`));
        mirror.invalidate();
      }
      await sleep(3);
    }
    const elapsed = performance.now() - started;
    const duringStream = rebuilds.length - 1;
    expect(duringStream).toBeGreaterThanOrEqual(1);
    expect(duringStream).toBeLessThanOrEqual(Math.ceil(elapsed / 30) + 1);
    await expect
      .poll(() => mirror.evaluate(getPods(`user-${changes - 1}`)), { timeout: 2000, interval: 2 })
      .toMatchObject({ allowed: { decision: 'allow' } });
  });
});
