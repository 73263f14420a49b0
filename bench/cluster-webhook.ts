// Our webhook on the cluster backend for scenario 3, composed as serve will compose it: the
// default chain, SubjectAccessReviews and discovery over HTTPS through @kubernetes/client-node.
// (backends.ts does not wire the cluster backend yet; once it does, run `serve --kubeconfig`.)
// Run as a child: node bench/cluster-webhook.ts <port> <metricsPort> <cert> <key> <kubeconfig>.
import { KubeConfig } from '@kubernetes/client-node';
import { createClusterAuthorizer } from '../src/adapters/cluster/authorizer.ts';
import { createClusterRestMapper } from '../src/adapters/cluster/rest-mapper.ts';
import { createLogger } from '../src/observability/logger.ts';
import { createMetrics } from '../src/observability/metrics.ts';
import { defaultEnabledPlugins, orderedPlugins } from '../src/plugins/index.ts';
import { systemClock, systemRandom } from '../src/ports/clock.ts';
import { startServer } from '../src/server/server.ts';
import { buildChain } from '../src/wiring.ts';

const [port, metricsPort, certFile, keyFile, kubeconfigFile] = process.argv.slice(2);
const kubeConfig = new KubeConfig();
kubeConfig.loadFromFile(kubeconfigFile!);
const logger = createLogger('info', process.stdout);
const metrics = createMetrics();
const authorizer = createClusterAuthorizer({ kubeConfig, logger, metrics: metrics.recorders.authorization });
const restMapper = createClusterRestMapper({ kubeConfig, logger });
await restMapper.ready(AbortSignal.timeout(10_000));
const chain = buildChain(orderedPlugins, { enabled: [...defaultEnabledPlugins], modes: {} }, { name: 'cluster', ports: { logger, clock: systemClock, random: systemRandom, authorizer, restMapper } }, metrics);
const server = await startServer({
  host: '127.0.0.1',
  port: Number(port),
  metricsPort: Number(metricsPort),
  certFile: certFile!,
  keyFile: keyFile!,
  chain,
  logger,
  metrics,
  requestTimeoutMs: 9000,
  backendNotReady: () => [],
  shutdownDelayMs: 0,
  drainTimeoutMs: 5000,
});
process.on('SIGTERM', () => void server.shutdown().then(async () => {
  await authorizer.close();
  await restMapper.close();
  process.exit(0);
}));
