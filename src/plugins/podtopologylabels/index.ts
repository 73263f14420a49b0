// PodTopologyLabels (upstream plugin/pkg/admission/podtopologylabels): a pod learns the zone and
// region of the node it is scheduled to as labels of its own, so workloads can read their topology
// through the downward API without reading Node objects. The labels go on the Binding (pods/binding),
// which kube-apiserver copies onto the pod, or on a pod created with spec.nodeName already set.
// Only with the PodTopologyLabelsAdmission gate on, as upstream.
import type { Attributes, RequestContext } from '../../admission/attributes.ts';
import { abortedError, forbidden } from '../../admission/errors.ts';
import { Operation } from '../../admission/operation.ts';
import type { AdmissionPlugin, PluginDefinition } from '../../admission/plugin.ts';
import { Feature } from '../../api/feature-gates.ts';
import type { KubeObject } from '../../api/types.ts';
import type { FeatureGates } from '../../ports/feature-gates.ts';
import type { Node, ResourceLookup } from '../../ports/lookups.ts';
import { asBinding, asPod } from './objects.ts';

export const pluginName = 'PodTopologyLabels';

/** Upstream's defaultConfig: the exact keys copied, no prefix rule (kube-apiserver offers no other). */
export const topologyLabels: readonly string[] = ['topology.kubernetes.io/zone', 'topology.kubernetes.io/region'];

/** How long a request waits for the nodes cache's first LIST (upstream admission.Handler's timeToWaitForReady). */
export const readyWaitMs = 10_000;

export const definition: PluginDefinition<'lookups' | 'featureGates'> = {
  name: pluginName,
  needs: ['lookups', 'featureGates'],
  lookups: ['nodes'],
  create: (ports) => podTopologyLabels(ports.lookups.nodes, ports.featureGates),
};

export function podTopologyLabels(nodes: ResourceLookup<Node>, featureGates: FeatureGates): AdmissionPlugin {
  /** The node's topology labels; none when the cache has no such node (upstream ignores NotFound). */
  const labelsToCopy = (nodeName: string): Record<string, string> => {
    const copied: Record<string, string> = {};
    const labels = nodes.cached('', nodeName)?.metadata?.labels ?? {};
    for (const key of topologyLabels) {
      const value = labels[key];
      if (typeof value === 'string') copied[key] = value;
    }
    return copied;
  };

  return {
    name: pluginName,
    handles: (operation) => operation === Operation.Create,
    mutates: [['metadata', 'labels']],

    async admit(attributes, context) {
      // Asked per request, as upstream asks: the cluster's version may be read after start-up.
      if (!featureGates.enabled(Feature.PodTopologyLabelsAdmission)) return;
      const target = targetOf(attributes);
      if (target === undefined) return;
      await waitForReady(attributes, nodes, context);
      if (target.nodeName === undefined) return;
      const copied = labelsToCopy(target.nodeName);
      if (Object.keys(copied).length === 0) return;
      // Overwrites what the Binding or pod already says for these keys, as upstream.
      target.object.metadata = { ...target.object.metadata, labels: { ...target.object.metadata?.labels, ...copied } };
    },
  };
}

/**
 * Upstream's shouldAdmit, then each kind's own skip: the object to label and the node it goes to
 * (undefined nodeName: a Binding to something else than a Node, or a pod not scheduled yet), or
 * undefined for a request the plugin leaves alone.
 */
function targetOf(attributes: Attributes): { object: KubeObject; nodeName: string | undefined } | undefined {
  if (attributes.resource.group !== '' || attributes.resource.resource !== 'pods') return undefined;
  switch (attributes.subresource) {
    case '': {
      const pod = asPod(attributes);
      const nodeName = pod.spec?.nodeName;
      return { object: pod, nodeName: nodeName === undefined || nodeName === null || nodeName === '' ? undefined : nodeName };
    }
    case 'binding': {
      const binding = asBinding(attributes);
      // The default scheduler sets only the target's kind and name, so only the kind is checked.
      return { object: binding, nodeName: binding.target?.kind === 'Node' ? (binding.target.name ?? '') : undefined };
    }
    default:
      return undefined;
  }
}

/** Upstream waits for the cache before either kind's own skip; a cache that never syncs is a refusal. */
async function waitForReady(attributes: Attributes, nodes: ResourceLookup<Node>, context: RequestContext): Promise<void> {
  if (nodes.synced === undefined) return;
  const { signal } = context.deadline;
  const synced = await nodes.synced(readyWaitMs, signal);
  if (synced) return;
  if (signal.aborted) throw abortedError(signal.reason, ' while waiting for the nodes cache');
  throw forbidden(attributes, 'not yet ready to handle request');
}
