// What the kubectl scenarios share: the world they run in (the examples' namespace and RBAC plus the
// fixtures', which the real API server holds and the local backend reads as its cluster state), and
// the upstream ORPE denial text with the explanation kubectl prints before it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { KubeObject } from '../../src/api/types.ts';
import { repoRoot } from '../deploy/tools.ts';

export const clusterState = [
  'examples/cluster-state.yaml',
  'examples/namespace.yaml',
  'examples/demo-user-rbac.yaml',
  'test/kubectl/fixtures/cluster-state.yaml',
];

/** OwnerReferencesPermissionEnforcement's denial, as upstream words it (reason and error are empty). */
export const blockOwnerDeletionDenied = (resource: string, name: string) =>
  `${resource} "${name}" is forbidden: cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: , <nil>`;

export const deniedByValidatingWebhook = (message: string) =>
  `admission webhook "validate.admission-chain.io" denied the request: ${message}`;

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
