// The ordered chain from the enabled plugins, each built on the backend's ports and wrapped from
// outside for metrics; the ports themselves are measured the same way (upstream's decorators).
// Each plugin carries its exemptions, which read namespaces through the same (measured) lookups.

import { kubeConfigImageReviewClients } from '../adapters/imagepolicy/kubeconfig-client.ts';
import { AdmissionChain, type ChainEntry } from '../admission/chain.ts';
import { compileExemption, type ExemptionRules } from '../admission/exemptions.ts';
import { instrumentPlugin } from '../admission/instrument.ts';
import { createPlugin, type PluginDefinition, PluginMode } from '../admission/plugin.ts';
import { createExplainer } from '../explain/index.ts';
import { instrumentAuthorizer } from '../observability/instrument-authorizer.ts';
import { instrumentLookups } from '../observability/instrument-lookups.ts';
import type { AdmissionMetrics } from '../observability/metrics.ts';
import type { PluginConfigurations, Ports } from '../ports/index.ts';
import type { Backend } from './backend.ts';

export interface BuildChainOptions {
  /** The enabled plugins, already in the compiled-in order. */
  enabled: readonly PluginDefinition[];
  modes: Readonly<Record<string, PluginMode>>;
  backend: Pick<Backend, 'name' | 'ports' | 'grants'>;
  metrics?: AdmissionMetrics | undefined;
  /** The --admission-control-config-file sections; each plugin that takes one checks it in create(). */
  configuration?: PluginConfigurations | undefined;
  /** The --plugin-exemptions-file rules of the enabled plugins, by plugin name. */
  exemptions?: ReadonlyMap<string, ExemptionRules> | undefined;
}

export function buildChain(options: BuildChainOptions): AdmissionChain {
  const { backend, metrics } = options;
  const instrumented = metrics ? instrumentPorts(backend.ports, metrics) : backend.ports;
  const configured = options.configuration === undefined ? instrumented : { ...instrumented, configuration: options.configuration };
  // The ImageReview backend is named by a kubeconfig file in the plugin's configuration, whichever backend serves the rest.
  const ports: Ports = { imageReview: kubeConfigImageReviewClients, ...configured };
  if (options.exemptions !== undefined && exemptionsReadNamespaces(options.exemptions) && ports.lookups === undefined)
    throw new Error(
      `plugin exemptions select namespaces by label, which needs namespace lookups the ${backend.name} backend does not provide`,
    );
  const entries: ChainEntry[] = options.enabled.map((definition) => {
    const plugin = createPlugin(definition, ports, backend.name);
    const rules = options.exemptions?.get(definition.name);
    return {
      plugin: metrics ? instrumentPlugin(plugin, metrics) : plugin,
      mode: options.modes[definition.name] ?? PluginMode.Enforce,
      ...(rules === undefined ? {} : { exemption: compileExemption(rules, ports.lookups?.namespaces) }),
    };
  });
  // Denials are explained with the requester's nearest grants where the backend knows them.
  return new AdmissionChain(entries, { explainer: createExplainer(backend.grants === undefined ? {} : { grants: backend.grants }) });
}

/** Whether some plugin's exemptions select namespaces by label: the backend must then read namespaces. */
export function exemptionsReadNamespaces(exemptions: ReadonlyMap<string, ExemptionRules>): boolean {
  return [...exemptions.values()].some((rules) => rules.namespaceSelectors.length > 0);
}

/** Authorization decisions and lookups are measured from outside the adapters that serve them; plugins get their recorders. */
function instrumentPorts(ports: Ports, metrics: AdmissionMetrics): Ports {
  const instrumented: Ports = { ...ports, recorders: metrics.recorders.plugins };
  if (ports.authorizer) instrumented.authorizer = instrumentAuthorizer(ports.authorizer, metrics.authorization);
  if (ports.lookups) instrumented.lookups = instrumentLookups(ports.lookups, metrics.recorders.lookups);
  return instrumented;
}
