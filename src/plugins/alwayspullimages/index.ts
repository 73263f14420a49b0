/**
 * AlwaysPullImages (upstream plugin/pkg/admission/alwayspullimages) sets every container's
 * imagePullPolicy, and every image volume's pullPolicy, to Always. In a multi-tenant cluster an image
 * pulled to a node can otherwise be run by any pod that knows its name; pulling every time makes the
 * kubelet present the pod's own credentials to the registry, so private images stay private.
 * The validating half rejects pods that still lack Always after later mutations.
 */
import type { Attributes } from '../../admission/attributes.ts';
import { forbidden } from '../../admission/errors.ts';
import { explained, FactType, maxFactItems } from '../../admission/explanation.ts';
import { eachItem } from '../../admission/mutation-scope.ts';
import { Operation } from '../../admission/operation.ts';
import type { AdmissionPlugin, PluginDefinition } from '../../admission/plugin.ts';
import type { Pod } from '../../api/core.ts';
import { badRequest, type StatusError } from '../../api/status-error.ts';
import { type Logger, silentLogger } from '../../ports/logger.ts';
import { aggregate, notSupported } from './field-errors.ts';
import { shouldIgnore } from './ignore.ts';
import { asPod, imageVolumesWithPath, stringField, visitContainersWithPath } from './pod.ts';

export const pluginName = 'AlwaysPullImages';

const pullAlways = 'Always';

export const definition: PluginDefinition<never> = {
  name: pluginName,
  needs: [],
  create: (ports) => alwaysPullImages(ports.logger),
};

export function alwaysPullImages(logger: Logger = silentLogger): AdmissionPlugin {
  return {
    name: pluginName,
    handles: (operation) => operation === Operation.Create || operation === Operation.Update,
    // One field of each container and image volume: only the lists and their items are copied.
    mutates: [
      ['spec', 'initContainers', eachItem, 'imagePullPolicy'],
      ['spec', 'containers', eachItem, 'imagePullPolicy'],
      ['spec', 'ephemeralContainers', eachItem, 'imagePullPolicy'],
      ['spec', 'volumes', eachItem, 'image', 'pullPolicy'],
    ],

    admit(attributes) {
      if (shouldIgnore(attributes, logger)) return;
      const pod = podOf(attributes);
      visitContainersWithPath(pod, (container) => {
        container.imagePullPolicy = pullAlways;
        return true;
      });
      for (const { image } of imageVolumesWithPath(pod)) image.pullPolicy = pullAlways;
    },

    validate(attributes) {
      if (shouldIgnore(attributes, logger)) return;
      const pod = podOf(attributes);
      const errors: StatusError[] = [];
      // What the explanation names: the first fields without Always (the message names them all).
      const fields: Array<{ path: string; value: string }> = [];
      const reject = (path: string, value: string | null | undefined) => {
        if (value === pullAlways) return;
        errors.push(forbidden(attributes, notSupported(path, stringField(value), [pullAlways])));
        if (fields.length < maxFactItems) fields.push({ path, value: stringField(value) });
      };
      visitContainersWithPath(pod, (container, path) => {
        reject(`${path}.imagePullPolicy`, container.imagePullPolicy);
        return true;
      });
      for (const { image, path } of imageVolumesWithPath(pod)) reject(`${path}.pullPolicy`, image.pullPolicy);
      if (errors.length > 0) throw explained(aggregate(errors), { facts: [{ type: FactType.PullPolicy, fields, total: errors.length }] });
    },
  };
}

function podOf(attributes: Attributes): Pod {
  const pod = asPod(attributes.object);
  if (!pod) throw badRequest('Resource was marked with kind Pod but was unable to be converted');
  return pod;
}
