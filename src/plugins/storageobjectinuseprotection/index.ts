// StorageObjectInUseProtection (upstream plugin/pkg/admission/storage/storageobjectinuseprotection):
// every new PersistentVolume, PersistentVolumeClaim and VolumeAttributesClass is born with its
// protection finalizer, so that deleting one still in use waits until nothing uses it. A
// VolumeAttributesClass gets its finalizer only where the cluster's VolumeAttributesClass gate is on:
// elsewhere no vac-protection controller runs to remove it, and the class could never be deleted.

import type { Attributes } from '../../admission/attributes.ts';
import { Operation } from '../../admission/operation.ts';
import type { AdmissionPlugin, PluginDefinition } from '../../admission/plugin.ts';
import type { KubeObject } from '../../api/types.ts';
import type { FeatureGates } from '../../ports/feature-gates.ts';
import { protectedResourceFor } from './protected-resources.ts';

export const pluginName = 'StorageObjectInUseProtection';

export const definition: PluginDefinition<'featureGates'> = {
  name: pluginName,
  needs: ['featureGates'],
  create: (ports) => storageObjectInUseProtection(ports.featureGates),
};

export function storageObjectInUseProtection(featureGates: FeatureGates): AdmissionPlugin {
  return {
    name: pluginName,
    handles: (operation) => operation === Operation.Create,
    mutates: [['metadata', 'finalizers']],
    admit: (attributes) => addProtectionFinalizer(attributes, featureGates),
  };
}

function addProtectionFinalizer(attributes: Attributes, featureGates: FeatureGates): void {
  const target = protectedResourceFor(attributes.resource);
  if (target === undefined) return;
  // Asked per request, as upstream asks: the cluster's version may be read after start-up.
  if (target.feature !== undefined && !featureGates.enabled(target.feature)) return;
  if (attributes.subresource !== '') return;
  const object = attributes.object;
  // Upstream silently lets a body of the wrong type through (its type assertion fails, it
  // returns nil); an object without metadata cannot carry a finalizer either.
  if (!isObjectOfKind(object, target.kind)) return;
  const finalizers = object.metadata?.finalizers ?? [];
  if (finalizers.includes(target.finalizer)) return;
  object.metadata = { ...object.metadata, finalizers: [...finalizers, target.finalizer] };
}

/** A kind-less body is accepted: the request's resource already says what it is. */
function isObjectOfKind(object: KubeObject | undefined, kind: string): object is KubeObject {
  if (typeof object !== 'object' || object === null || Array.isArray(object)) return false;
  if (object.kind !== undefined && object.kind !== kind) return false;
  const metadata: unknown = object.metadata;
  if (metadata !== undefined && (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata))) return false;
  const finalizers: unknown = object.metadata?.finalizers;
  return finalizers === undefined || finalizers === null || Array.isArray(finalizers);
}
