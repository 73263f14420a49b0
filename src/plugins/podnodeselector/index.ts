// PodNodeSelector (upstream plugin/pkg/admission/podnodeselector): a namespace's node selector
// (annotation scheduler.alpha.kubernetes.io/node-selector, or the cluster default) is merged into
// every new pod's nodeSelector, and a pod asking for other values of those labels, or for labels
// outside its namespace's whitelist, is denied — so tenants stay on the node pools they are given.
import type { Attributes, RequestContext } from '../../admission/attributes.ts';
import { explained, FactType, maxFactItems } from '../../admission/explanation.ts';
import { Operation } from '../../admission/operation.ts';
import type { AdmissionPlugin, PluginDefinition } from '../../admission/plugin.ts';
import type { Pod } from '../../api/core.ts';
import { type LabelSet, labelsConflict } from '../../api/labels.ts';
import { newForbidden } from '../../api/status-error.ts';
import type { Logger } from '../../ports/logger.ts';
import type { Namespace, ResourceLookup } from '../../ports/lookups.ts';
import { type PodNodeSelectorConfiguration, parseConfiguration } from './configuration.ts';
import { namespaceNodeSelector } from './namespace-selector.ts';
import { asPod, nodeSelectorOf } from './pod.ts';

export const pluginName = 'PodNodeSelector';

export const definition: PluginDefinition<'lookups'> = {
  name: pluginName,
  needs: ['lookups'],
  lookups: ['namespaces'],
  create: (ports) =>
    podNodeSelector(ports.lookups.namespaces, parseConfiguration(ports.configuration?.for(pluginName), pluginName), ports.logger),
};

export function podNodeSelector(
  namespaces: ResourceLookup<Namespace>,
  configuration: PodNodeSelectorConfiguration,
  logger: Logger,
): AdmissionPlugin {
  /** The pod this plugin acts on, or undefined when upstream's shouldIgnore would skip the request. */
  const podOf = (attributes: Attributes): Pod | undefined => {
    if (attributes.resource.group !== '' || attributes.resource.resource !== 'pods' || attributes.subresource !== '') return undefined;
    const pod = asPod(attributes.object);
    if (pod === undefined) logger.error({ kind: attributes.kind.kind }, 'expected pod but got another object');
    return pod;
  };

  const withNamespaceSelector = async (
    attributes: Attributes,
    context: RequestContext,
    check: (selector: LabelSet) => void,
  ): Promise<void> => {
    check(await namespaceNodeSelector(namespaces, attributes.namespace, configuration, context.deadline.signal));
  };

  return {
    name: pluginName,
    handles: (operation) => operation === Operation.Create,
    mutates: [['spec', 'nodeSelector']],

    admit(attributes, context) {
      const pod = podOf(attributes);
      if (pod === undefined) return;
      return withNamespaceSelector(attributes, context, (namespaceSelector) => {
        const podSelector = nodeSelectorOf(pod);
        if (labelsConflict(namespaceSelector, podSelector)) throw conflict(attributes, pod, namespaceSelector, podSelector);
        mergeInto(pod, namespaceSelector, podSelector);
        // Upstream's Admit ends by running Validate on the merged pod.
        checkWhitelist(attributes, pod, configuration);
      });
    },

    validate(attributes, context) {
      const pod = podOf(attributes);
      if (pod === undefined) return;
      return withNamespaceSelector(attributes, context, (namespaceSelector) => {
        const podSelector = nodeSelectorOf(pod);
        if (labelsConflict(namespaceSelector, podSelector)) throw conflict(attributes, pod, namespaceSelector, podSelector);
        checkWhitelist(attributes, pod, configuration);
      });
    },
  };
}

/** labels.Merge(namespace, pod): the namespace's labels the pod lacks are added; the pod's stay. */
function mergeInto(pod: Pod, namespaceSelector: LabelSet, podSelector: LabelSet): void {
  const added: Record<string, string> = {};
  let adding = false;
  for (const [key, value] of namespaceSelector) {
    if (podSelector.has(key)) continue;
    added[key] = value;
    adding = true;
  }
  // Upstream always assigns a map; an empty one is the same on the wire as none.
  if (!adding) return;
  pod.spec = { ...pod.spec, nodeSelector: { ...pod.spec?.nodeSelector, ...added } };
}

function checkWhitelist(attributes: Attributes, pod: Pod, configuration: PodNodeSelectorConfiguration): void {
  const whitelist = configuration.whitelists.get(attributes.namespace);
  if (whitelist === undefined || whitelist.size === 0) return;
  // Every label outside the whitelist is named (up to the fact limit), not only the first one upstream stops at.
  const labels: Array<{ key: string; value: string; allowed?: string }> = [];
  for (const [key, value] of nodeSelectorOf(pod)) {
    if (labels.length >= maxFactItems) break;
    const allowed = whitelist.get(key);
    if (allowed !== value) labels.push(allowed === undefined ? { key, value } : { key, value, allowed });
  }
  if (labels.length === 0) return;
  const rejection = forbidden(attributes, pod, 'pod node label selector labels conflict with its namespace whitelist');
  throw explained(rejection, { facts: [{ type: FactType.NodeSelectorWhitelist, namespace: attributes.namespace, labels }] });
}

function conflict(attributes: Attributes, pod: Pod, namespaceSelector: LabelSet, podSelector: LabelSet) {
  const conflicts: Array<{ key: string; podValue: string; namespaceValue: string }> = [];
  for (const [key, podValue] of podSelector) {
    if (conflicts.length >= maxFactItems) break;
    const namespaceValue = namespaceSelector.get(key);
    if (namespaceValue !== undefined && namespaceValue !== podValue) conflicts.push({ key, podValue, namespaceValue });
  }
  const rejection = forbidden(attributes, pod, 'pod node label selector conflicts with its namespace node label selector');
  return explained(rejection, { facts: [{ type: FactType.NodeSelectorConflict, namespace: attributes.namespace, conflicts }] });
}

/** errors.NewForbidden(resource, pod.Name, err): the pod's own name, "" before generateName runs. */
function forbidden(attributes: Attributes, pod: Pod, reason: string) {
  const name = pod.metadata?.name;
  return newForbidden(attributes.resource, typeof name === 'string' ? name : '', reason);
}
