// Scenario 3's API server, in its own process: the stand-in from test/apiserver answering
// SubjectAccessReviews with the embedded RBAC evaluator over bench/cluster-state.yaml, and
// discovery from the built-in snapshot, over real HTTPS. Writes its kubeconfig to argv[2].
import { writeFileSync } from 'node:fs';
import { loadClusterStateFile } from '../src/adapters/local/cluster-state.ts';
import { builtInDiscovery } from '../src/adapters/local/discovery-snapshot.ts';
import { createRbacAuthorizer } from '../src/adapters/local/rbac/index.ts';
import { serveDiscovery } from '../test/apiserver/discovery-routes.ts';
import { startStandInApiServer } from '../test/apiserver/index.ts';

const [kubeconfigFile] = process.argv.slice(2);
const state = await loadClusterStateFile(new URL('./cluster-state.yaml', import.meta.url).pathname);
const api = await startStandInApiServer({ authorizer: createRbacAuthorizer(state) });
serveDiscovery(api, builtInDiscovery);
writeFileSync(kubeconfigFile!, api.kubeconfigYaml);
process.stdout.write('ready\n');
process.on('SIGTERM', () => void api.close().then(() => process.exit(0)));
