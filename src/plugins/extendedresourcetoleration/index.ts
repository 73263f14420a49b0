// ExtendedResourceToleration (upstream plugin/pkg/admission/extendedresourcetoleration): a pod that
// requests an extended resource (example.com/gpu) gets a toleration for the taint of that name, so
// nodes carrying such devices can be tainted to keep every other pod off them.
import { Operation } from '../../admission/operation.ts';
import type { AdmissionPlugin, PluginDefinition } from '../../admission/plugin.ts';
import type { Toleration } from '../../api/core.ts';
import { isExtendedResourceName } from './extended-resource.ts';
import { asPod, type PodForExtendedResources } from './pod.ts';

export const pluginName = 'ExtendedResourceToleration';

export const definition: PluginDefinition<never> = {
  name: pluginName,
  needs: [],
  create: () => extendedResourceToleration(),
};

export function extendedResourceToleration(): AdmissionPlugin {
  return {
    name: pluginName,
    handles: (operation) => operation === Operation.Create || operation === Operation.Update,
    mutates: [['spec', 'tolerations']],
    admit(attributes) {
      // Only the pods resource itself: subresources and other resources pass untouched.
      if (attributes.subresource !== '' || attributes.resource.group !== '' || attributes.resource.resource !== 'pods') return;
      addExtendedResourceTolerations(asPod(attributes.object));
    },
  };
}

function addExtendedResourceTolerations(pod: PodForExtendedResources): void {
  const resources = new Set<string>();
  for (const container of [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])]) {
    for (const name of Object.keys(container?.resources?.requests ?? {})) {
      if (isExtendedResourceName(name)) resources.add(name);
    }
  }
  if (resources.size === 0) return;
  // Upstream adds them in sorted order (sets.List); extended resource names are ASCII.
  const sorted = [...resources].sort();
  pod.spec!.tolerations = addOrUpdateTolerations(pod.spec!.tolerations ?? [], sorted);
}

/**
 * helper.AddOrUpdateTolerationInPod once per resource, in one pass: each toleration with the
 * resource's key, Exists, no value and NoSchedule is replaced by the canonical one (upstream's
 * equality check compares a pointer with a value, so it always replaces); a resource with no such
 * toleration gets one appended.
 */
function addOrUpdateTolerations(given: ReadonlyArray<Toleration | null>, resources: readonly string[]): Toleration[] {
  // A null toleration is Go's zero Toleration, and is written back as one.
  const result = given.map((toleration) => toleration ?? {});
  const wanted = new Set(resources);
  const matching = new Map<string, number[]>();
  result.forEach((toleration, index) => {
    const key = toleration.key ?? '';
    if (!wanted.has(key) || toleration.operator !== 'Exists' || (toleration.value ?? '') !== '' || toleration.effect !== 'NoSchedule')
      return;
    const indexes = matching.get(key);
    if (indexes === undefined) matching.set(key, [index]);
    else indexes.push(index);
  });
  for (const resource of resources) {
    const replacement: Toleration = { key: resource, operator: 'Exists', effect: 'NoSchedule' };
    const indexes = matching.get(resource);
    if (indexes === undefined) result.push(replacement);
    else for (const index of indexes) result[index] = replacement;
  }
  return result;
}
