// When AlwaysPullImages stays out of a request (upstream shouldIgnore): anything but the core-group
// pods resource itself (every subresource, pods/ephemeralcontainers included), and updates that bring
// no image the pod did not already have: those images were pulled under the rules in force when
// the pod was created, so there is nothing new to protect.
import type { Attributes } from '../../admission/attributes.ts';
import { Operation } from '../../admission/operation.ts';
import type { Logger } from '../../ports/logger.ts';
import { asPod, visitContainersWithPath } from './pod.ts';

export function shouldIgnore(attributes: Attributes, logger: Logger): boolean {
  if (attributes.subresource !== '') return true;
  if (attributes.resource.group !== '' || attributes.resource.resource !== 'pods') return true;
  return isUpdateWithNoNewImages(attributes, logger);
}

/**
 * True for an UPDATE whose every container image (init, regular, ephemeral) was already in the old
 * pod. Image volumes are not compared, as upstream does not compare them (pod volumes are immutable
 * on update anyway). When either object is not a Pod the update is not skipped.
 */
export function isUpdateWithNoNewImages(attributes: Attributes, logger: Logger): boolean {
  if (attributes.operation !== Operation.Update) return false;
  const pod = asPod(attributes.object);
  if (!pod) {
    logger.warn('Resource was marked with kind Pod but pod was unable to be converted.');
    return false;
  }
  const oldPod = asPod(attributes.oldObject);
  if (!oldPod) {
    logger.warn('Resource was marked with kind Pod but old pod was unable to be converted.');
    return false;
  }
  const oldImages = new Set<string>();
  visitContainersWithPath(oldPod, (container) => {
    oldImages.add(container.image ?? '');
    return true;
  });
  // Early exit: the first image the old pod did not have decides it.
  return visitContainersWithPath(pod, (container) => oldImages.has(container.image ?? ''));
}
