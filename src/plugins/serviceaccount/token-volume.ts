// The auto-mounted API credentials: one projected volume (a bound token, the cluster CA bundle and
// the namespace) mounted read-only at the well-known path in every init and regular container
// that does not already mount something there. Ephemeral containers are left alone, as upstream.
import type { Pod, Volume, VolumeMount } from '../../api/core.ts';
import {
  defaultAPITokenMountPath,
  projectedVolumeSourceDefaultMode,
  serviceAccountVolumeNamePrefix,
  warnOnlyBoundTokenExpirationSeconds,
} from './constants.ts';
import { containersOf, specOf } from './pod.ts';

/** upstream TokenVolumeSource(), as v1 JSON. */
export function tokenVolumeSource(): Record<string, unknown> {
  return {
    defaultMode: projectedVolumeSourceDefaultMode,
    sources: [
      { serviceAccountToken: { path: 'token', expirationSeconds: warnOnlyBoundTokenExpirationSeconds } },
      { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
      { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
    ],
  };
}

/**
 * Adds the mounts and, when some container needed one and the pod has no `kube-api-access-`
 * volume yet, the volume. An existing such volume is reused by name, which is what makes a
 * second run change nothing. generateName is asked for a name exactly when upstream asks.
 */
export function mountServiceAccountToken(pod: Pod, generateName: (base: string) => string): void {
  const spec = specOf(pod);
  let tokenVolumeName = '';
  let hasTokenVolume = false;
  for (const volume of spec.volumes ?? []) {
    const name = (volume as Volume | null)?.name;
    if (typeof name === 'string' && name.startsWith(serviceAccountVolumeNamePrefix)) {
      tokenVolumeName = name;
      hasTokenVolume = true;
      break;
    }
  }
  if (tokenVolumeName === '') tokenVolumeName = generateName(serviceAccountVolumeNamePrefix);

  let needsTokenVolume = false;
  for (const container of [...containersOf(spec.initContainers), ...containersOf(spec.containers)]) {
    const mounts = container.volumeMounts ?? [];
    if (mounts.some((mount) => mount?.mountPath === defaultAPITokenMountPath)) continue;
    const mount: VolumeMount = { name: tokenVolumeName, readOnly: true, mountPath: defaultAPITokenMountPath };
    container.volumeMounts = [...mounts, mount];
    needsTokenVolume = true;
  }

  if (!hasTokenVolume && needsTokenVolume) {
    spec.volumes = [...(spec.volumes ?? []), { name: tokenVolumeName, projected: tokenVolumeSource() }];
  }
}
