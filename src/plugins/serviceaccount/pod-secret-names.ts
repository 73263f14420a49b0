// pkg/api/pod VisitPodSecretNames: every secret a pod names directly (pull secrets, env, envFrom,
// volume sources), which mirror pods must not do. Empty names are not visited.
import type { Pod, Volume } from '../../api/core.ts';
import { containersOf, isSet } from './pod.ts';

type NamedRef = { name?: string } | null | undefined;

/**
 * Calls visit with each referenced secret name until it returns false; returns false when it
 * stopped early. Containers go init, regular, ephemeral, as upstream's AllContainers mask.
 */
export function visitPodSecretNames(pod: Pod, visit: (name: string) => boolean): boolean {
  const visitor = (name: string | undefined): boolean => (name === undefined || name === '' ? true : visit(name));
  const spec = pod.spec ?? {};
  for (const reference of spec.imagePullSecrets ?? []) {
    if (!visitor(reference?.name)) return false;
  }
  // Upstream ignores the container walk's own short-circuit result and goes on to the volumes.
  const containers = [...containersOf(spec.initContainers), ...containersOf(spec.containers), ...containersOf(spec.ephemeralContainers)];
  for (const container of containers) {
    if (!visitContainer(container, visitor)) break;
  }
  for (const volume of spec.volumes ?? []) {
    if (!isSet(volume)) continue;
    if (!visitVolume(volume, visitor)) return false;
  }
  return true;
}

function visitContainer(container: ReturnType<typeof containersOf>[number], visitor: (name: string | undefined) => boolean): boolean {
  for (const envFrom of container.envFrom ?? []) {
    if (isSet(envFrom?.secretRef) && !visitor(envFrom.secretRef.name)) return false;
  }
  for (const envVar of container.env ?? []) {
    const ref = envVar?.valueFrom?.secretKeyRef;
    if (isSet(ref) && !visitor(ref.name)) return false;
  }
  return true;
}

/** One source per volume, checked in upstream's switch order: the first set source decides. */
function visitVolume(volume: Volume, visitor: (name: string | undefined) => boolean): boolean {
  const source = volume as Record<string, unknown>;
  const ref = (field: string): NamedRef => (source[field] as { secretRef?: NamedRef }).secretRef;
  if (isSet(source.azureFile)) return visitor((source.azureFile as { secretName?: string }).secretName);
  if (isSet(source.cephfs)) return visitIfSet(ref('cephfs'), visitor);
  if (isSet(source.cinder)) return visitIfSet(ref('cinder'), visitor);
  if (isSet(source.flexVolume)) return visitIfSet(ref('flexVolume'), visitor);
  if (isSet(source.projected)) {
    for (const projection of (source.projected as { sources?: Array<{ secret?: NamedRef } | null> }).sources ?? []) {
      if (isSet(projection?.secret) && !visitor(projection.secret.name)) return false;
    }
    return true;
  }
  if (isSet(source.rbd)) return visitIfSet(ref('rbd'), visitor);
  if (isSet(source.secret)) return visitor((source.secret as { secretName?: string }).secretName);
  if (isSet(source.scaleIO)) return visitIfSet(ref('scaleIO'), visitor);
  if (isSet(source.iscsi)) return visitIfSet(ref('iscsi'), visitor);
  if (isSet(source.storageos)) return visitIfSet(ref('storageos'), visitor);
  if (isSet(source.csi)) return visitIfSet((source.csi as { nodePublishSecretRef?: NamedRef }).nodePublishSecretRef, visitor);
  return true;
}

function visitIfSet(reference: NamedRef, visitor: (name: string | undefined) => boolean): boolean {
  return isSet(reference) ? visitor(reference.name) : true;
}
