// Which resources get which protection finalizer. The matching controllers (pv-protection,
// pvc-protection, vac-protection) remove the finalizer once nothing uses the object any more,
// so a finalizer present from creation is what keeps an in-use volume from vanishing.
import { Feature } from '../../api/feature-gates.ts';
import type { GroupResource } from '../../api/types.ts';

export const pvProtectionFinalizer = 'kubernetes.io/pv-protection';
export const pvcProtectionFinalizer = 'kubernetes.io/pvc-protection';
export const vacProtectionFinalizer = 'kubernetes.io/vac-protection';

export interface ProtectedResource extends GroupResource {
  /** The object kind the request body must carry (upstream's type assertion). */
  readonly kind: string;
  readonly finalizer: string;
  /** The feature gate the protection sits behind upstream, if any. */
  readonly feature?: Feature;
}

export const protectedResources: readonly ProtectedResource[] = [
  { group: '', resource: 'persistentvolumes', kind: 'PersistentVolume', finalizer: pvProtectionFinalizer },
  { group: '', resource: 'persistentvolumeclaims', kind: 'PersistentVolumeClaim', finalizer: pvcProtectionFinalizer },
  {
    group: 'storage.k8s.io',
    resource: 'volumeattributesclasses',
    kind: 'VolumeAttributesClass',
    finalizer: vacProtectionFinalizer,
    feature: Feature.VolumeAttributesClass,
  },
];

export function protectedResourceFor(resource: GroupResource): ProtectedResource | undefined {
  return protectedResources.find((p) => p.group === resource.group && p.resource === resource.resource);
}
