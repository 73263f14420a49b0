// RuntimeClass (upstream plugin/pkg/admission/runtimeclass): a pod that names a RuntimeClass gets
// that class's pod overhead and scheduling constraints, and a pod cannot claim an overhead its
// RuntimeClass does not define — so resource accounting and placement follow the runtime.
import type { Attributes, RequestContext } from '../../admission/attributes.ts';
import { Operation } from '../../admission/operation.ts';
import type { AdmissionPlugin, PluginDefinition } from '../../admission/plugin.ts';
import type { ResourceLookup, RuntimeClass } from '../../ports/lookups.ts';
import { runtimeClassFor } from './lookup.ts';
import { setOverhead, validateOverhead } from './overhead.ts';
import { asPod } from './pod.ts';
import { setScheduling } from './scheduling.ts';

export const pluginName = 'RuntimeClass';

export const definition: PluginDefinition<'lookups'> = {
  name: pluginName,
  needs: ['lookups'],
  lookups: ['runtimeClasses'],
  create: (ports) => runtimeClass(ports.lookups.runtimeClasses),
};

export function runtimeClass(runtimeClasses: ResourceLookup<RuntimeClass>): AdmissionPlugin {
  const prepare = async (attributes: Attributes, context: RequestContext) => {
    const pod = asPod(attributes.object);
    const runtimeClass = await runtimeClassFor(attributes, pod, runtimeClasses, context.deadline.signal);
    return { pod, runtimeClass };
  };

  return {
    name: pluginName,
    handles: (operation) => operation === Operation.Create,
    mutates: [
      ['spec', 'overhead'],
      ['spec', 'nodeSelector'],
      ['spec', 'tolerations'],
    ],

    async admit(attributes, context) {
      if (shouldIgnore(attributes)) return;
      const { pod, runtimeClass } = await prepare(attributes, context);
      // Work on a draft so that a rejection half-way leaves the pod as it came.
      const draft = { ...pod, spec: pod.spec === undefined ? undefined : { ...pod.spec } };
      setOverhead(attributes, draft, runtimeClass);
      setScheduling(attributes, draft, runtimeClass);
      if (draft.spec !== undefined) pod.spec = draft.spec;
    },

    async validate(attributes, context) {
      if (shouldIgnore(attributes)) return;
      const { pod, runtimeClass } = await prepare(attributes, context);
      validateOverhead(attributes, pod, runtimeClass);
    },
  };
}

/** Only the pods resource itself: subresources (status, binding, ...) and other resources pass. */
function shouldIgnore(attributes: Attributes): boolean {
  return attributes.subresource !== '' || attributes.resource.group !== '' || attributes.resource.resource !== 'pods';
}
