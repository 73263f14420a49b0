// Scenario 6's API server, in its own process: the stand-in from test/apiserver holding
// bench/cluster-state.yaml's RBAC objects (and, with --cluster-sized, bench/rbac-mirror-cluster.ts's
// 10,000 RoleBindings) in its object store, serving them over LIST (paged) and WATCH, and answering
// SubjectAccessReviews with RBAC over the same store — as kube-apiserver answers both from one
// source. RoleBindings are writable (the memory run changes some to time a rebuild). Discovery from
// the built-in snapshot. Writes its kubeconfig to argv[2]; prints "ready".
import { writeFileSync } from 'node:fs';
import { loadClusterStateFile } from '../src/adapters/local/cluster-state.ts';
import { builtInDiscovery } from '../src/adapters/local/discovery-snapshot.ts';
import { serveDiscovery } from '../test/apiserver/discovery-routes.ts';
import {
  clusterRoleBindingType,
  clusterRoleType,
  putRbac,
  roleBindingType,
  roleType,
  startStandInApiServer,
  storeRbacAuthorizer,
} from '../test/apiserver/index.ts';
import { clusterSizedRbac, narrowTeamBinding } from './rbac-mirror-cluster.ts';

const [kubeconfigFile, size] = process.argv.slice(2);
const state = await loadClusterStateFile(new URL('./cluster-state.yaml', import.meta.url).pathname);
const api = await startStandInApiServer({
  authorizer: storeRbacAuthorizer,
  resources: [roleType, clusterRoleType, clusterRoleBindingType],
  writableResources: [roleBindingType],
});
const extra = size === '--cluster-sized' ? clusterSizedRbac() : { roles: [], clusterRoles: [], roleBindings: [], clusterRoleBindings: [] };
putRbac(api.store, {
  roles: [...state.roles, ...extra.roles],
  clusterRoles: [...state.clusterRoles, ...extra.clusterRoles],
  roleBindings: [...state.roleBindings, narrowTeamBinding, ...extra.roleBindings],
  clusterRoleBindings: [...state.clusterRoleBindings, ...extra.clusterRoleBindings],
});
serveDiscovery(api, builtInDiscovery);
writeFileSync(kubeconfigFile!, api.kubeconfigYaml);
process.stdout.write('ready\n');
process.on('SIGTERM', () => void api.close().then(() => process.exit(0)));
