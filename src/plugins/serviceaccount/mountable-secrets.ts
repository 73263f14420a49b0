// The enforce-mountable-secrets rule: a pod may use only the secrets its service account lists
// (ServiceAccount.secrets for volumes and env, .imagePullSecrets for pull secrets). Checked in
// upstream's order, first violation wins, with upstream's exact sentences.
import type { Pod } from '../../api/core.ts';
import type { ServiceAccount } from '../../ports/lookups.ts';
import { enforceMountableSecretsAnnotation } from './constants.ts';
import { parseGoBool } from './parse-bool.ts';
import { containersOf, isSet, type SecretReferencingContainer } from './pod.ts';

/** A global switch (upstream LimitSecretReferences, off in kube-apiserver) or the account's annotation. */
export function enforcesMountableSecrets(serviceAccount: ServiceAccount, limitSecretReferences: boolean): boolean {
  if (limitSecretReferences) return true;
  const annotations = serviceAccount.metadata?.annotations;
  if (annotations && Object.hasOwn(annotations, enforceMountableSecretsAnnotation)) {
    return parseGoBool(annotations[enforceMountableSecretsAnnotation] ?? '') === true;
  }
  return false;
}

/** Volumes, then init containers, then containers, then image pull secrets. */
export function secretReferenceViolation(serviceAccount: ServiceAccount, pod: Pod): string | undefined {
  const accountName = serviceAccount.metadata?.name ?? '';
  const mountable = mountableSecretNames(serviceAccount);
  const spec = pod.spec ?? {};
  for (const volume of spec.volumes ?? []) {
    const secret = (volume as { secret?: { secretName?: string } | null } | null)?.secret;
    if (!isSet(secret)) continue;
    const secretName = secret.secretName ?? '';
    if (!mountable.has(secretName)) {
      return `volume with secret.secretName="${secretName}" is not allowed because service account ${accountName} does not reference that secret`;
    }
  }
  const initViolation = containerViolation('init container', containersOf(spec.initContainers), mountable, accountName);
  if (initViolation) return initViolation;
  const containerViolationMessage = containerViolation('container', containersOf(spec.containers), mountable, accountName);
  if (containerViolationMessage) return containerViolationMessage;

  const pullSecrets = new Set((serviceAccount.imagePullSecrets ?? []).map((s) => s?.name ?? ''));
  const podPullSecrets = spec.imagePullSecrets ?? [];
  for (let i = 0; i < podPullSecrets.length; i++) {
    const name = podPullSecrets[i]?.name ?? '';
    if (!pullSecrets.has(name)) {
      return `imagePullSecrets[${i}].name="${name}" is not allowed because service account ${accountName} does not reference that imagePullSecret`;
    }
  }
  return undefined;
}

/** Only the ephemeral containers' env and envFrom: what the ephemeralcontainers subresource adds. */
export function ephemeralContainerSecretReferenceViolation(serviceAccount: ServiceAccount, pod: Pod): string | undefined {
  const accountName = serviceAccount.metadata?.name ?? '';
  return containerViolation(
    'ephemeral container',
    containersOf(pod.spec?.ephemeralContainers),
    mountableSecretNames(serviceAccount),
    accountName,
  );
}

function mountableSecretNames(serviceAccount: ServiceAccount): Set<string> {
  return new Set((serviceAccount.secrets ?? []).map((s) => s?.name ?? ''));
}

/** Per container: every env secretKeyRef, then every envFrom secretRef. */
function containerViolation(
  kind: string,
  containers: SecretReferencingContainer[],
  mountable: Set<string>,
  accountName: string,
): string | undefined {
  for (const container of containers) {
    for (const env of container.env ?? []) {
      const ref = env?.valueFrom?.secretKeyRef;
      if (!isSet(ref)) continue;
      const secretName = ref.name ?? '';
      if (!mountable.has(secretName)) {
        return `${kind} ${container.name ?? ''} with envVar ${env.name ?? ''} referencing secret.secretName="${secretName}" is not allowed because service account ${accountName} does not reference that secret`;
      }
    }
    for (const envFrom of container.envFrom ?? []) {
      const ref = envFrom?.secretRef;
      if (!isSet(ref)) continue;
      const secretName = ref.name ?? '';
      if (!mountable.has(secretName)) {
        return `${kind} ${container.name ?? ''} with envFrom referencing secret.secretName="${secretName}" is not allowed because service account ${accountName} does not reference that secret`;
      }
    }
  }
  return undefined;
}
