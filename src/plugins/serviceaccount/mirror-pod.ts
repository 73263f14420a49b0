// Mirror pods are the API-server copies of kubelet static pods: the plugin never changes them
// (kubelet would delete a mirror pod whose spec no longer matches), and they may not reach for
// service accounts, secrets or token projections, which a static pod cannot be authorized for.
import type { Pod } from '../../api/core.ts';
import { isSet, serviceAccountNameOf } from './pod.ts';
import { visitPodSecretNames } from './pod-secret-names.ts';

/** Why a mirror pod is forbidden, in upstream's words and order; undefined when it is fine. */
export function mirrorPodViolation(pod: Pod): string | undefined {
  if (serviceAccountNameOf(pod) !== '') return 'a mirror pod may not reference service accounts';
  let hasSecrets = false;
  visitPodSecretNames(pod, () => {
    hasSecrets = true;
    return false;
  });
  if (hasSecrets) return 'a mirror pod may not reference secrets';
  for (const volume of pod.spec?.volumes ?? []) {
    const sources = (volume as { projected?: { sources?: Array<{ serviceAccountToken?: unknown } | null> } | null } | null)?.projected
      ?.sources;
    if (sources?.some((source) => isSet(source?.serviceAccountToken))) {
      return 'a mirror pod may not use ServiceAccountToken volume projections';
    }
  }
  return undefined;
}
