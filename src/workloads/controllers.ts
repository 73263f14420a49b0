// The identities kube-controller-manager's controllers write as, and the controller reference they
// set on what they create. With --use-service-account-credentials (kubeadm's and the managed
// clusters' setting) each controller authenticates as its own service account in kube-system.
import type { KubeObject, OwnerReference, UserInfo } from '../api/types.ts';
import { stableUid } from './names.ts';

/** The controllers that create pods (or the objects that do), by their service account's name. */
export const Controllers = {
  deployment: 'deployment-controller',
  replicaSet: 'replicaset-controller',
  replicationController: 'replication-controller',
  statefulSet: 'statefulset-controller',
  daemonSet: 'daemon-set-controller',
  job: 'job-controller',
  cronJob: 'cronjob-controller',
} as const;

export type ControllerName = (typeof Controllers)[keyof typeof Controllers];

/** The user a controller's service account authenticates as, with the groups every service account has. */
export function controllerUser(controller: ControllerName): UserInfo {
  return {
    username: `system:serviceaccount:kube-system:${controller}`,
    groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated'],
  };
}

/** metav1.NewControllerRef: the owner, marked as the controller, blocking its deletion. */
export function controllerRef(owner: KubeObject): OwnerReference {
  return {
    apiVersion: owner.apiVersion!,
    kind: owner.kind!,
    name: owner.metadata?.name ?? '',
    uid: owner.metadata?.uid ?? stableUid(owner),
    controller: true,
    blockOwnerDeletion: true,
  };
}
