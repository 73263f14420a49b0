// Upstream plugin/pkg/admission/storage/storageobjectinuseprotection/admission_test.go TestAdmit,
// every row, as data: each a CREATE, with the object admission should leave (the old object, a copy
// of the new one, must stay as it was).
import type { GroupVersionResource, KubeObject } from '../../../api/types.ts';

export const pvcs: GroupVersionResource = { group: '', version: 'v1', resource: 'persistentvolumeclaims' };
export const pvs: GroupVersionResource = { group: '', version: 'v1', resource: 'persistentvolumes' };
export const vacs: GroupVersionResource = { group: 'storage.k8s.io', version: 'v1', resource: 'volumeattributesclasses' };

export const claim: KubeObject = { kind: 'PersistentVolumeClaim', metadata: { name: 'claim', namespace: 'ns' } };
export const pv: KubeObject = { kind: 'PersistentVolume', metadata: { name: 'pv' } };
export const vac: KubeObject = { kind: 'VolumeAttributesClass', metadata: { name: 'vac' } };

export const withFinalizers = (object: KubeObject, finalizers: string[]): KubeObject => ({
  ...object,
  metadata: { ...object.metadata, finalizers },
});

const claimWithFinalizer = withFinalizers(claim, ['kubernetes.io/pvc-protection']);
const pvWithFinalizer = withFinalizers(pv, ['kubernetes.io/pv-protection']);
const vacWithFinalizer = withFinalizers(vac, ['kubernetes.io/vac-protection']);

export interface StorageObjectInUseProtectionCase {
  name: string;
  resource: GroupVersionResource;
  object: KubeObject;
  expected: KubeObject;
  /** The VolumeAttributesClass gate (off: upstream emulates 1.35, where it is not yet locked on). */
  vacFeatureGate: boolean;
}

export const admitCases: StorageObjectInUseProtectionCase[] = [
  {
    name: 'persistentvolumeclaims: create -> add finalizer',
    resource: pvcs,
    object: claim,
    expected: claimWithFinalizer,
    vacFeatureGate: false,
  },
  {
    name: 'persistentvolumeclaims: finalizer already exists -> no new finalizer',
    resource: pvcs,
    object: claimWithFinalizer,
    expected: claimWithFinalizer,
    vacFeatureGate: false,
  },
  { name: 'persistentvolumes: create -> add finalizer', resource: pvs, object: pv, expected: pvWithFinalizer, vacFeatureGate: false },
  {
    name: 'persistentvolumes: finalizer already exists -> no new finalizer',
    resource: pvs,
    object: pvWithFinalizer,
    expected: pvWithFinalizer,
    vacFeatureGate: false,
  },
  {
    name: 'volumeattributesclasses VacFeatureGate disabled: create -> no finalizer added',
    resource: vacs,
    object: vac,
    expected: vac,
    vacFeatureGate: false,
  },
  {
    name: 'volumeattributesclasses VacFeatureGate disabled: finalizer already exists -> no new finalizer',
    resource: vacs,
    object: vacWithFinalizer,
    expected: vacWithFinalizer,
    vacFeatureGate: false,
  },
  {
    name: 'volumeattributesclasses VacFeatureGate enabled: create -> add finalizer',
    resource: vacs,
    object: vac,
    expected: vacWithFinalizer,
    vacFeatureGate: true,
  },
  {
    name: 'volumeattributesclasses VacFeatureGate enabled: finalizer already exists -> no new finalizer',
    resource: vacs,
    object: vacWithFinalizer,
    expected: vacWithFinalizer,
    vacFeatureGate: true,
  },
];
