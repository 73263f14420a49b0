// Which resources get which protection finalizer. The matching controllers (pv-protection,
// pvc-protection, vac-protection) remove the finalizer once nothing uses the object any more,
// so a finalizer present from creation is what keeps an in-use volume from vanishing.
import type { GroupResource } from '../../api/types.ts';

export const pvProtectionFinalizer = 'kubernetes.io/pv-protection';
export const pvcProtectionFinalizer = 'kubernetes.io/pvc-protection';
export const vacProtectionFinalizer = 'kubernetes.io/vac-protection';

export interface ProtectedResource extends GroupResource {
  /** The object kind the request body must carry (upstream's type assertion). */
  readonly kind: string;
  readonly finalizer: string;
}

/**
 * VolumeAttributesClass protection sits behind the VolumeAttributesClass feature gate upstream;
 * the gate is GA and on by default since Kubernetes 1.34, so it is always on here.
 */
export const protectedResources: readonly ProtectedResource[] = [
  { group: '', resource: 'persistentvolumes', kind: 'PersistentVolume', finalizer: pvProtectionFinalizer },
  { group: '', resource: 'persistentvolumeclaims', kind: 'PersistentVolumeClaim', finalizer: pvcProtectionFinalizer },
  { group: 'storage.k8s.io', resource: 'volumeattributesclasses', kind: 'VolumeAttributesClass', finalizer: vacProtectionFinalizer },
];

export function protectedResourceFor(resource: GroupResource): ProtectedResource | undefined {
  return protectedResources.find((p) => p.group === resource.group && p.resource === resource.resource);
}
