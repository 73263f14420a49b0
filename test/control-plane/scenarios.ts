// The kubectl scenarios' world on the real control plane: the same files the local backend reads as
// its cluster state (the examples' namespace, RBAC, service account and RuntimeClass, the Widget
// custom resource and demo-user's rights on it) applied to the API server, which authorizes kubectl
// with them too, plus the owner Deployment every ownerReference names.
import { clusterState } from '../kubectl/scenarios.ts';
import { type RealCluster, startRealCluster } from './real-cluster.ts';

export interface DemoOptions {
  /** 'cluster': the webhook reads the API server through client-node, as in a pod; default the cluster-state files. */
  backend?: 'local' | 'cluster';
  /** Start the webhook before the world is applied (default true); false leaves the configurations without webhooks until the test starts it. */
  startWebhook?: boolean;
}

/**
 * The plugins enforce, as in the documented dry-run examples (`pluginMode=enforce`; the chart's own
 * default is warn), unless the values say otherwise.
 */
export async function demoRealCluster(values: Record<string, unknown> = {}, options: DemoOptions = {}): Promise<RealCluster> {
  const cluster = await startRealCluster({
    values: { pluginMode: 'enforce', ...values },
    startWebhook: options.startWebhook ?? true,
    ...(options.backend === 'cluster' ? {} : { clusterState }),
  });
  try {
    for (const file of clusterState) await cluster.kubectlOk('apply', '-f', file);
    await cluster.kubectlOk('wait', '--for=condition=Established', 'crd/widgets.example.com', '--timeout=30s');
    await cluster.kubectlOk('apply', '-f', 'test/kubectl/fixtures/deployment-web.yaml');
    return cluster;
  } catch (error) {
    await cluster.close();
    throw error;
  }
}

/** examples/pod.yaml applied with --dry-run=server; prints its containers' imagePullPolicy (AlwaysPullImages sets Always). */
export function dryRunPodPullPolicies(cluster: Pick<RealCluster, 'kubectl'>): ReturnType<RealCluster['kubectl']> {
  return cluster.kubectl('apply', '--dry-run=server', '-f', 'examples/pod.yaml', '-o', 'jsonpath={.spec.containers[*].imagePullPolicy}');
}
