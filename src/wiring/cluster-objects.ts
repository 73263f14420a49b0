// The cluster's objects for commands that read them (audit), through the cluster adapters: the
// kubeconfig as the cluster backend loads it, the objects listed page by page. Loaded only when
// used, like the cluster backend.
import type { ObjectLister } from '../adapters/cluster/objects/list-objects.ts';

export type { ListedResource, ObjectLister } from '../adapters/cluster/objects/list-objects.ts';

export interface ClusterObjectsOptions {
  /** --kubeconfig; otherwise KUBECONFIG, ~/.kube/config, then in-cluster. */
  kubeconfig: string | undefined;
  pageSize: number;
  timeoutMs: number;
}

export async function openClusterObjects(options: ClusterObjectsOptions): Promise<ObjectLister> {
  const [{ loadKubeConfig }, { createObjectLister }] = await Promise.all([
    import('./cluster.ts'),
    import('../adapters/cluster/objects/list-objects.ts'),
  ]);
  return createObjectLister({ kubeConfig: loadKubeConfig(options.kubeconfig), pageSize: options.pageSize, timeoutMs: options.timeoutMs });
}
