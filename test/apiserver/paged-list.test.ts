// The stand-in's LIST pages as kube-apiserver does (limit, continue, remainingItemCount, the first
// page's resourceVersion on every page), refuses a continue token it did not issue, serves the
// four RBAC resources, and can end every open watch — through the real client-node.

import { ApiException, RbacAuthorizationV1Api, Watch } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { rbacTypes, roleBindingType, type StandInApiServer, startStandInApiServer } from './index.ts';

let api: StandInApiServer | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

describe('stand-in paged LIST and watches', () => {
  it("pages RoleBindings across namespaces in key order, each page at the first page's resourceVersion", async () => {
    api = await startStandInApiServer({ resources: [...rbacTypes] });
    for (let i = 0; i < 12; i++)
      api.store.put(roleBindingType, {
        metadata: { name: `rb-${i}`, namespace: i % 2 === 0 ? 'b' : 'a' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
      });
    const rbac = api.kubeConfig.makeApiClient(RbacAuthorizationV1Api);
    const first = await rbac.listRoleBindingForAllNamespaces({ limit: 5 });
    expect(first.items.map((b) => `${b.metadata?.namespace}/${b.metadata?.name}`)).toEqual([
      'a/rb-1',
      'a/rb-11',
      'a/rb-3',
      'a/rb-5',
      'a/rb-7',
    ]);
    expect(first.metadata?.remainingItemCount).toBe(7);
    const rv = first.metadata?.resourceVersion;
    api.store.put(roleBindingType, {
      metadata: { name: 'late', namespace: 'a' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
    });
    const second = await rbac.listRoleBindingForAllNamespaces({ limit: 5, _continue: first.metadata?._continue });
    expect(second.metadata?.resourceVersion).toBe(rv);
    expect(second.items.map((b) => b.metadata?.name)).toEqual(['rb-9', 'rb-0', 'rb-10', 'rb-2', 'rb-4']);
    const third = await rbac.listRoleBindingForAllNamespaces({ limit: 5, _continue: second.metadata?._continue });
    expect(third.items.map((b) => b.metadata?.name)).toEqual(['rb-6', 'rb-8']);
    expect(third.metadata?._continue).toBeUndefined();
    expect((await rbac.listNamespacedRoleBinding({ namespace: 'b' })).items).toHaveLength(6);
  });

  it('refuses a continue token it did not issue with 400', async () => {
    api = await startStandInApiServer({ resources: [...rbacTypes] });
    const rbac = api.kubeConfig.makeApiClient(RbacAuthorizationV1Api);
    const error = await rbac.listClusterRole({ limit: 1, _continue: 'bm90IGEgdG9rZW4' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiException);
    expect((error as ApiException<unknown>).code).toBe(400);
  });

  it('dropWatches ends every open watch; the client sees the stream end', async () => {
    api = await startStandInApiServer({ resources: [...rbacTypes] });
    const ended = new Promise<unknown>((resolve) => {
      void new Watch(api!.kubeConfig).watch('/apis/rbac.authorization.k8s.io/v1/rolebindings', {}, () => {}, resolve);
    });
    await expect.poll(() => api!.calls.count('watch rolebindings'), { timeout: 5000, interval: 10 }).toBe(1);
    expect(api.store.dropWatches()).toBe(1);
    await ended;
    expect(api.store.dropWatches()).toBe(0);
  });
});
