// What the kubectl scenarios share: the cluster-state the webhook answers from (the examples'
// RBAC plus the fixtures'), the demo namespace and the owner Deployment every ownerReference names,
// and the upstream ORPE denial text.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { KubeObject } from '../../src/api/types.ts';
import { repoRoot } from '../deploy/tools.ts';
import { startPretendCluster, type PretendCluster } from './cluster.ts';

export const clusterState = ['examples/cluster-state.yaml', 'examples/namespace.yaml', 'examples/demo-user-rbac.yaml', 'test/kubectl/fixtures/cluster-state.yaml'];

/** OwnerReferencesPermissionEnforcement's denial, as upstream words it (reason and error are empty). */
export const blockOwnerDeletionDenied = (resource: string, name: string) =>
  `${resource} "${name}" is forbidden: cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: , <nil>`;

export const deniedByValidatingWebhook = (message: string) => `admission webhook "validate.admission-chain.io" denied the request: ${message}`;

/**
 * What kubectl prints before that denial for demo-user and the Deployment "web": the explanation's
 * warnings — what is missing, the nearest grant demo-user has, and the commands that grant it.
 */
export const ownerDenialWarnings = [
  'user "demo-user" may not update deployments/finalizers (apps) "web" in namespace "admission-chain-demo"',
  'closest existing grant: RoleBinding "demo-user/admission-chain-demo" of Role "demo-user" to User "demo-user" allows get,list on deployments (apps), not update on deployments/finalizers',
  'kubectl create role update-deployments-finalizers-web -n admission-chain-demo --verb=update --resource=deployments.apps/finalizers --resource-name=web',
  'kubectl create rolebinding update-deployments-finalizers-web-demo-user -n admission-chain-demo --role=update-deployments-finalizers-web --user=demo-user',
]
  .map((warning) => `Warning: ${warning}\n`)
  .join('');

export function fixture(path: string): KubeObject {
  return parse(readFileSync(join(repoRoot, path), 'utf8')) as KubeObject;
}

/**
 * A pretend cluster with the demo namespace created through kubectl (a real write) and the owner
 * Deployment seeded. The webhook answers from the cluster-state files above, or with `backend:
 * 'cluster'` from the stand-in itself (what kubectl wrote, as a webhook in a pod reads it). The
 * plugins enforce, as in the documented dry-run examples (`pluginMode=enforce`; the chart's own
 * default is warn), unless the values say otherwise.
 */
export async function demoCluster(values: Record<string, unknown> = {}, options: { backend?: 'local' | 'cluster' } = {}): Promise<PretendCluster> {
  const cluster = await startPretendCluster({ values: { pluginMode: 'enforce', ...values }, ...(options.backend === 'cluster' ? {} : { clusterState }) });
  try {
    const created = await cluster.kubectl('apply', '-f', 'examples/namespace.yaml');
    if (created.code !== 0) throw new Error(`creating the demo namespace failed: ${created.stderr}`);
    cluster.surface.putObject(fixture('test/kubectl/fixtures/deployment-web.yaml'));
    return cluster;
  } catch (error) {
    await cluster.close();
    throw error;
  }
}
