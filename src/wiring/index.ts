// The composition root: the one place that decides which backend answers (a local cluster-state
// file, or the cluster through @kubernetes/client-node) and which plugins run, and builds the chain
// from them. Every command goes through it; nothing else knows which backend is in use. The cluster
// side is imported only when used: client-node alone adds about 45 MiB of resident memory as the
// image runs it (bundled), 85 MiB loaded from node_modules.
import type { ClusterState } from '../adapters/local/cluster-state.ts';
import type { AdmissionChain } from '../admission/chain.ts';
import type { PluginDefinition } from '../admission/plugin.ts';
import { loadAdmissionConfigurationFlag } from '../config/admission-configuration.ts';
import { loadPluginExemptionsFlag } from '../config/plugin-exemptions.ts';
import { type PluginSelection, type PluginSelectionFlags, selectPlugins as selectFrom } from '../config/plugins.ts';
import type { ServeConfig } from '../config/serve-config.ts';
import type { AdmissionMetrics } from '../observability/metrics.ts';
import { rbacMirrorRecorder } from '../observability/rbac-mirror-metrics.ts';
import { defaultEnabledPlugins, orderedPlugins } from '../plugins/index.ts';
import type { Logger } from '../ports/logger.ts';
import type { Management, ManagementOverrides } from '../registration/manager.ts';
import type { HelmRelease, Unregistered } from '../registration/unregister.ts';
import type { Backend, BackendConfig, ClusterObservers } from './backend.ts';
import { buildChain, exemptionsReadNamespaces } from './chain.ts';
import { loadLocalBackend } from './local.ts';

export type { ClusterState } from '../adapters/local/cluster-state.ts';
export { parseClusterState } from '../adapters/local/cluster-state.ts';
export type { ManagementOverrides } from '../registration/manager.ts';
export { type LocalAuthorizer, loadLocalAuthorizer } from './local.ts';

/** The compiled-in plugin list and the default set, for the flag parsers. */
export const pluginCatalog = { ordered: orderedPlugins, defaults: defaultEnabledPlugins } as const;

/**
 * Start-up failed. `usage` is true when the flags, or a file they name, are at fault (the command
 * line answers exit 2); false when the world is (a cluster out of reach: exit 1).
 */
export class StartupError extends Error {
  readonly usage: boolean;
  constructor(message: string, usage: boolean) {
    super(message);
    this.name = 'StartupError';
    this.usage = usage;
  }
}

/** Which plugins run, in which mode, from the flags (the order is always the compiled-in one). */
export function selectCatalogPlugins(flags: PluginSelectionFlags): PluginSelection {
  return selectFrom(orderedPlugins, defaultEnabledPlugins, flags);
}

/** The enabled plugins' definitions, in the chain's order: filtered here, once. */
function enabledPlugins(selection: PluginSelection): readonly PluginDefinition[] {
  return orderedPlugins.filter((definition) => selection.enabled.includes(definition.name));
}

async function createBackend(
  config: BackendConfig,
  logger: Logger,
  enabled: readonly PluginDefinition[],
  observers: ClusterObservers = {},
  completeState?: (state: ClusterState) => ClusterState,
): Promise<Backend> {
  if (config.kind === 'local') return loadLocalBackend(config, logger, completeState);
  const cluster = await import('./cluster.ts');
  return cluster.createClusterBackend(cluster.loadKubeConfig(config.kubeconfig), config, logger, enabled, observers);
}

export interface AdmissionOptions {
  backend: BackendConfig;
  selection: PluginSelection;
  admissionControlConfigFile: string | undefined;
  /** --plugin-exemptions-file: who and where each plugin does not act (none: every plugin acts on every request it handles). */
  pluginExemptionsFile?: string | undefined;
  logger: Logger;
  /** Metrics for the plugins, the ports and the cluster adapters (serve); none offline. */
  metrics?: AdmissionMetrics;
  /** Told each part of the AdmissionConfiguration and exemptions files that is ignored, as soon as it is read. */
  warn(warning: string): void;
  /** Offline: what a real API server holds that the cluster-state file may not (bootstrap RBAC). */
  completeLocalState?: (state: ClusterState) => ClusterState;
}

export interface Admission {
  backend: Backend;
  chain: AdmissionChain;
}

/**
 * The backend and the chain: the AdmissionConfiguration and plugin exemptions files first (a bad one
 * stops start-up before the cluster is contacted), then the backend, then each plugin on its ports,
 * configuration and exemptions.
 */
export async function composeAdmission(options: AdmissionOptions): Promise<Admission> {
  const { selection, logger, metrics } = options;
  const enabled = enabledPlugins(selection);
  const admission = await loadAdmissionConfigurationFlag(
    options.admissionControlConfigFile,
    selection.enabled,
    orderedPlugins.map((p) => p.name),
  ).catch((error: Error) => {
    throw new StartupError(error.message, true);
  });
  for (const warning of admission.warnings) options.warn(warning);
  const exemptions = await loadPluginExemptionsFlag(
    options.pluginExemptionsFile,
    selection.enabled,
    orderedPlugins.map((p) => p.name),
  ).catch((error: Error) => {
    throw new StartupError(error.message, true);
  });
  for (const warning of exemptions.warnings) options.warn(warning);
  const mirrorsRbac =
    options.backend.kind === 'cluster' &&
    options.backend.authorizer === 'rbac-mirror' &&
    enabled.some((p) => p.needs.includes('authorizer'));
  const observers: ClusterObservers = metrics
    ? {
        authorization: metrics.recorders.authorization,
        discovery: metrics.recorders.discovery,
        informers: metrics.recorders.informers,
        ...(mirrorsRbac ? { rbacMirror: rbacMirrorRecorder(metrics.registry, metrics.lookups) } : {}),
      }
    : {};
  // Namespace label exemptions read namespaces, whether or not a plugin does.
  const readers = exemptionsReadNamespaces(exemptions.rules) ? [...enabled, namespaceReader] : enabled;
  const backend = await createBackend(options.backend, logger, readers, observers, options.completeLocalState).catch((error: Error) => {
    throw new StartupError(error.message, false);
  });
  try {
    const chain = buildChain({
      enabled,
      modes: selection.modes,
      backend,
      metrics,
      configuration: admission.configurations,
      exemptions: exemptions.rules,
    });
    return { backend, chain };
  } catch (error) {
    // A plugin's configuration that does not parse (PodNodeSelector's selectors, PodTolerationRestriction's tolerations).
    await backend.close();
    throw new StartupError((error as Error).message, true);
  }
}

/** What the backend must provide for namespace label exemptions, stated as a plugin states its needs; never built. */
const namespaceReader: PluginDefinition<'lookups'> = {
  name: 'plugin exemptions',
  needs: ['lookups'],
  lookups: ['namespaces'],
  create: () => {
    throw new Error('the plugin exemptions are not a plugin');
  },
};

/** Starts the in-cluster management `serve` was asked for (registration, self-managed TLS), if any. */
export async function startServeManagement(
  config: ServeConfig,
  logger: Logger,
  overrides?: ManagementOverrides,
): Promise<Management | undefined> {
  const management = config.management;
  if (management === undefined || (management.webhookConfiguration === undefined && management.selfManagedTls === undefined))
    return undefined;
  const { startClusterManagement } = await import('./management.ts');
  return startClusterManagement(config, logger, overrides);
}

/** `unregister`: deletes both webhook configurations of this name from the cluster (with ownedBy, only those that Helm release installed). */
export async function unregister(
  kubeconfig: string | undefined,
  name: string,
  timeoutMs: number,
  ownedBy?: HelmRelease,
): Promise<Unregistered[]> {
  const { unregisterFromCluster } = await import('./management.ts');
  return unregisterFromCluster(kubeconfig, name, timeoutMs, ownedBy);
}
