// LimitPodHardAntiAffinityTopology (upstream plugin/pkg/admission/antiaffinity): a pod may demand
// not to share a node with others (required anti-affinity on kubernetes.io/hostname), but not a
// whole zone or any other topology domain, which lets one pod keep many nodes to itself.
import type { Attributes } from '../../admission/attributes.ts';
import { explained, FactType } from '../../admission/explanation.ts';
import { Operation } from '../../admission/operation.ts';
import type { AdmissionPlugin, PluginDefinition } from '../../admission/plugin.ts';
import { badRequest, newForbidden } from '../../api/status-error.ts';
import { isPlainObject } from '../../util/plain-object.ts';

export const pluginName = 'LimitPodHardAntiAffinityTopology';

/** v1.LabelHostname: the only topology key a required anti-affinity term may use. */
const labelHostname = 'kubernetes.io/hostname';

export const definition: PluginDefinition<never> = {
  name: pluginName,
  needs: [],
  create: () => limitPodHardAntiAffinityTopology(),
};

export function limitPodHardAntiAffinityTopology(): AdmissionPlugin {
  return {
    name: pluginName,
    handles: (operation) => operation === Operation.Create || operation === Operation.Update,
    validate(attributes) {
      // Only the pods resource itself: subresources and other resources pass.
      if (attributes.subresource !== '' || attributes.resource.group !== '' || attributes.resource.resource !== 'pods') return;
      const terms = requiredAntiAffinityTerms(attributes.object);
      // RequiredDuringSchedulingRequiredDuringExecution is not implemented upstream either.
      for (const [index, term] of terms.entries()) {
        const topologyKey = term?.topologyKey ?? '';
        if (topologyKey !== labelHostname) {
          const rejection = newForbidden(
            attributes.resource,
            podName(attributes),
            `affinity.PodAntiAffinity.RequiredDuringScheduling has TopologyKey ${topologyKey} but only key ${labelHostname} is allowed`,
          );
          throw explained(rejection, { facts: [{ type: FactType.AntiAffinityTopology, topologyKey, term: index }] });
        }
      }
    },
  };
}

interface PodAffinityTerm {
  topologyKey?: string | null;
}

/**
 * spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution of a body that
 * decodes as a Pod; anything else is upstream's failed conversion, a 400. A null term is Go's
 * zero PodAffinityTerm (what encoding/json decodes it to): an empty topology key.
 */
function requiredAntiAffinityTerms(object: unknown): Array<PodAffinityTerm | null> {
  const notAPod = () => badRequest('Resource was marked with kind Pod but was unable to be converted');
  if (!isPlainObject(object) || (object.kind !== undefined && object.kind !== 'Pod')) throw notAPod();
  let value: unknown = object;
  for (const field of ['spec', 'affinity', 'podAntiAffinity']) {
    value = (value as Record<string, unknown>)[field];
    if (value === undefined || value === null) return [];
    if (!isPlainObject(value)) throw notAPod();
  }
  const terms = (value as Record<string, unknown>).requiredDuringSchedulingIgnoredDuringExecution;
  if (terms === undefined || terms === null) return [];
  const decodes =
    Array.isArray(terms) && terms.every((term) => term === null || (isPlainObject(term) && isOptionalString(term.topologyKey)));
  if (!decodes) throw notAPod();
  return terms as Array<PodAffinityTerm | null>;
}

/** Upstream names the pod by pod.Name: the object's own name, "" when it has none yet. */
function podName(attributes: Attributes): string {
  const name = attributes.object?.metadata?.name;
  return typeof name === 'string' ? name : '';
}

function isOptionalString(value: unknown): boolean {
  return value === undefined || value === null || typeof value === 'string';
}
