// PodTolerationRestriction (upstream plugin/pkg/admission/podtolerationrestriction): new pods get
// their namespace's default tolerations (annotation scheduler.alpha.kubernetes.io/defaultTolerations,
// else the cluster-wide default), and a pod whose tolerations are not all covered by its namespace's
// whitelist (or the cluster's) is denied — so tenants cannot tolerate their way onto tainted nodes.
import type { Attributes } from '../../admission/attributes.ts';
import { explained, FactType, maxFactItems } from '../../admission/explanation.ts';
import { Operation } from '../../admission/operation.ts';
import type { AdmissionPlugin, PluginDefinition } from '../../admission/plugin.ts';
import type { Toleration } from '../../api/core.ts';
import { nonStatusError } from '../../api/status-error.ts';
import { mergeTolerations } from '../../api/tolerations/merge.ts';
import { fieldsOf, tolerationJson } from '../../api/tolerations/toleration.ts';
import { uncoveredTolerations } from '../../api/tolerations/uncovered.ts';
import type { Logger } from '../../ports/logger.ts';
import type { Namespace, ResourceLookup } from '../../ports/lookups.ts';
import { type PodTolerationRestrictionConfiguration, parseConfiguration } from './configuration.ts';
import {
  annotatedTolerations,
  defaultTolerationsAnnotation,
  namespaceOnce,
  tolerationsWhitelistAnnotation,
} from './namespace-tolerations.ts';
import { asPod, type PodForTolerations, tolerationsOf } from './pod.ts';
import { isBestEffort } from './qos.ts';

export const pluginName = 'PodTolerationRestriction';

type NamespaceSource = () => Promise<Namespace>;

/** Every pod that is not BestEffort tolerates memory pressure, as upstream's Admit adds. */
const memoryPressureToleration: Toleration = { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' };

export const definition: PluginDefinition<'lookups'> = {
  name: pluginName,
  needs: ['lookups'],
  lookups: ['namespaces'],
  create: (ports) =>
    podTolerationRestriction(ports.lookups.namespaces, parseConfiguration(ports.configuration?.for(pluginName), pluginName), ports.logger),
};

export function podTolerationRestriction(
  namespaces: ResourceLookup<Namespace>,
  configuration: PodTolerationRestrictionConfiguration,
  logger: Logger,
): AdmissionPlugin {
  /** The pod this plugin acts on, or undefined when upstream's shouldIgnore would skip the request. */
  const podOf = (attributes: Attributes): PodForTolerations | undefined => {
    if (attributes.resource.group !== '' || attributes.resource.resource !== 'pods' || attributes.subresource !== '') return undefined;
    const pod = asPod(attributes.object);
    if (pod === undefined) logger.error({ kind: attributes.kind.kind }, 'expected pod but got another object');
    return pod;
  };

  async function admitTolerations(attributes: Attributes, pod: PodForTolerations, namespace: NamespaceSource): Promise<void> {
    let extra: Toleration[] = [];
    if (attributes.operation === Operation.Create) {
      const defaults = annotatedTolerations(await namespace(), defaultTolerationsAnnotation);
      // A namespace that sets none falls back to the cluster's defaults.
      extra = (defaults ?? configuration.default).map((t) => tolerationJson(fieldsOf(t)));
    }
    if (!isBestEffort(pod)) extra.push({ ...memoryPressureToleration });
    if (extra.length > 0) pod.spec = { ...pod.spec, tolerations: mergeTolerations(tolerationsOf(pod), extra) };
    // Upstream's Admit ends by running Validate on the merged pod.
    await validateTolerations(attributes, pod, namespace);
  }

  async function validateTolerations(attributes: Attributes, pod: PodForTolerations, namespace: NamespaceSource): Promise<void> {
    const tolerations = tolerationsOf(pod);
    if (tolerations.length === 0) return;
    const annotated = annotatedTolerations(await namespace(), tolerationsWhitelistAnnotation);
    // A namespace that sets none falls back to the cluster's whitelist.
    const scope: 'namespace' | 'cluster' = annotated === undefined ? 'cluster' : 'namespace';
    const whitelist = annotated ?? configuration.whitelist;
    if (whitelist.length === 0) return;
    // Upstream's VerifyAgainstWhitelist, answered by the list the explanation names.
    const uncovered = uncoveredTolerations(tolerations, whitelist, maxFactItems);
    if (uncovered.total === 0) return;
    throw explained(
      nonStatusError(`pod tolerations (possibly merged with namespace default tolerations) conflict with its ${scope} whitelist`),
      {
        facts: [
          {
            type: FactType.TolerationWhitelist,
            namespace: attributes.namespace,
            scope,
            tolerations: uncovered.first,
            total: uncovered.total,
          },
        ],
      },
    );
  }

  return {
    name: pluginName,
    handles: (operation) => operation === Operation.Create || operation === Operation.Update,
    mutates: [['spec', 'tolerations']],
    admit(attributes, context) {
      const pod = podOf(attributes);
      if (pod === undefined) return;
      return admitTolerations(attributes, pod, namespaceOnce(namespaces, attributes.namespace, context.deadline.signal));
    },
    validate(attributes, context) {
      const pod = podOf(attributes);
      if (pod === undefined) return;
      return validateTolerations(attributes, pod, namespaceOnce(namespaces, attributes.namespace, context.deadline.signal));
    },
  };
}
