// StorageObjectInUseProtection (upstream plugin/pkg/admission/storage/storageobjectinuseprotection):
// every new PersistentVolume, PersistentVolumeClaim and VolumeAttributesClass is born with its
// protection finalizer, so that deleting one still in use waits until nothing uses it.
import type { KubeObject } from '../../api/types.ts';
import type { Attributes } from '../../admission/attributes.ts';
import { Operation } from '../../admission/operation.ts';
import type { AdmissionPlugin, PluginDefinition } from '../../admission/plugin.ts';
import { protectedResourceFor } from './protected-resources.ts';

export const pluginName = 'StorageObjectInUseProtection';

export const definition: PluginDefinition<never> = {
  name: pluginName,
  needs: [],
  create: () => storageObjectInUseProtection(),
};

export function storageObjectInUseProtection(): AdmissionPlugin {
  return {
    name: pluginName,
    handles: (operation) => operation === Operation.Create,
    mutates: [['metadata', 'finalizers']],
    admit: addProtectionFinalizer,
  };
}

function addProtectionFinalizer(attributes: Attributes): void {
  const target = protectedResourceFor(attributes.resource);
  if (target === undefined || attributes.subresource !== '') return;
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
