// The composition root: the one place that picks adapters (cluster or local) and builds the
// ordered chain from the enabled plugins. Nothing else knows which backend is in use.
import { AdmissionChain, type ChainEntry } from './admission/chain.ts';
import { instrumentPlugin } from './admission/instrument.ts';
import type { PluginDefinition } from './admission/plugin.ts';
import { loadClusterStateFile, type ClusterState } from './adapters/local/cluster-state.ts';
import { createLocalLookups } from './adapters/local/lookups.ts';
import { createRbacAuthorizer } from './adapters/local/rbac/index.ts';
import { createGrantFinder } from './adapters/local/rbac/closest-grant.ts';
import { createLocalRestMapper } from './adapters/local/rest-mapper.ts';
import type { PluginSelection } from './config/plugins.ts';
import { createExplainer } from './explain/index.ts';
import type { AdmissionMetrics } from './observability/metrics.ts';
import { instrumentAuthorizer } from './observability/instrument-authorizer.ts';
import { instrumentLookups } from './observability/instrument-lookups.ts';
import { systemClock, systemRandom } from './ports/clock.ts';
import type { GrantFinder } from './ports/grants.ts';
import type { PluginConfigurations, Ports } from './ports/index.ts';
import type { Logger } from './ports/logger.ts';

export interface Backend {
  readonly name: 'local' | 'cluster';
  readonly ports: Ports;
  /** The requester's nearest existing grants, named when a denial is explained (local backend only). */
  readonly grants?: GrantFinder;
  /** Reasons the backend cannot serve yet (caches syncing); [] when ready. */
  notReadyReasons(): string[];
  /** Resolves once caches have synced for the first time. */
  ready(): Promise<void>;
  close(): Promise<void>;
}

export function createLocalBackend(state: ClusterState, logger: Logger): Backend {
  const authorizer = createRbacAuthorizer(state);
  // Rules that grant more than they seem to (e.g. "/healthz*" also matches "/healthzzz").
  for (const warning of authorizer.lintWarnings()) logger.warn({ warning }, 'cluster state RBAC lint');
  const ports: Ports = {
    logger,
    clock: systemClock,
    random: systemRandom,
    authorizer,
    restMapper: createLocalRestMapper(state),
    lookups: createLocalLookups(state),
  };
  return {
    name: 'local',
    ports,
    grants: createGrantFinder(state),
    notReadyReasons: () => [],
    ready: async () => {},
    close: async () => {},
  };
}

export async function loadLocalBackend(path: string, logger: Logger): Promise<Backend> {
  return createLocalBackend(await loadClusterStateFile(path), logger);
}

/** Authorization decisions and lookups are measured from outside the adapters that serve them. */
function instrumentPorts(ports: Ports, metrics: AdmissionMetrics): Ports {
  const instrumented: Ports = { ...ports };
  if (ports.authorizer) instrumented.authorizer = instrumentAuthorizer(ports.authorizer, metrics.authorization);
  if (ports.lookups) instrumented.lookups = instrumentLookups(ports.lookups, metrics.recorders.lookups);
  return instrumented;
}

export function buildChain(
  ordered: readonly PluginDefinition[],
  selection: PluginSelection,
  backend: Pick<Backend, 'name' | 'ports' | 'grants'>,
  metrics?: AdmissionMetrics,
  /** The --admission-control-config-file sections; each plugin that takes one checks it in create(). */
  configuration?: PluginConfigurations,
): AdmissionChain {
  const entries: ChainEntry[] = [];
  const instrumented = metrics ? instrumentPorts(backend.ports, metrics) : backend.ports;
  const ports = configuration === undefined ? instrumented : { ...instrumented, configuration };
  for (const definition of ordered) {
    if (!selection.enabled.includes(definition.name)) continue;
    for (const need of definition.needs) {
      if (backend.ports[need] === undefined) {
        throw new Error(`admission plugin ${definition.name} needs a ${need}, which the ${backend.name} backend does not provide`);
      }
    }
    const plugin = definition.create(ports);
    entries.push({ plugin: metrics ? instrumentPlugin(plugin, metrics) : plugin, mode: selection.modes[definition.name] ?? 'enforce' });
  }
  return new AdmissionChain(entries, { explainer: createExplainer(backend.grants === undefined ? {} : { grants: backend.grants }) });
}
