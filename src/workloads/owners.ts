// Which controller an object belongs to, and whether that controller is a workload kind whose
// expansion already makes the object: a pod of a ReplicaSet is what that ReplicaSet's template
// yields, a Deployment's ReplicaSet what the Deployment's does, a CronJob's Job what the CronJob's
// does. Reported under its controller, such an object would be reported twice.
import type { KubeObject, OwnerReference } from '../api/types.ts';

const expandedFrom: Record<string, readonly string[]> = {
  'v1 Pod': ['apps/v1 ReplicaSet', 'v1 ReplicationController', 'apps/v1 StatefulSet', 'apps/v1 DaemonSet', 'batch/v1 Job'],
  'apps/v1 ReplicaSet': ['apps/v1 Deployment'],
  'batch/v1 Job': ['batch/v1 CronJob'],
};

/** The owner reference marked as the controller (metav1.GetControllerOf), if any. */
export function controllerOf(object: KubeObject): OwnerReference | undefined {
  const references = object.metadata?.ownerReferences;
  return Array.isArray(references) ? references.find((r) => r?.controller === true) : undefined;
}

/** Whether the object's controller is of a workload kind that, expanded, creates this object. */
export function isMadeByWorkload(object: KubeObject): boolean {
  const controller = controllerOf(object);
  if (controller === undefined) return false;
  return expandedFrom[`${object.apiVersion} ${object.kind}`]?.includes(`${controller.apiVersion} ${controller.kind}`) ?? false;
}
