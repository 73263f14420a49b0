// ServiceAccount (upstream plugin/pkg/admission/serviceaccount): every pod runs as a service
// account that exists. Admission defaults `spec.serviceAccountName` to `default`, checks the
// account exists (racing the controller that creates `default` in new namespaces), mounts the
// bound API token volume unless the pod or account opts out, copies the account's image pull
// secrets, and, where the account asks for it, limits the pod to the secrets the account lists.
import type { Attributes, RequestContext } from '../../admission/attributes.ts';
import { forbidden } from '../../admission/errors.ts';
import { Operation } from '../../admission/operation.ts';
import type { AdmissionPlugin, PluginDefinition } from '../../admission/plugin.ts';
import type { Pod } from '../../api/core.ts';
import type { ServiceAccount } from '../../ports/lookups.ts';
import { defaultServiceAccountName, pluginName } from './constants.ts';
import { getServiceAccount, type ServiceAccountSource } from './lookup.ts';
import { mirrorPodViolation } from './mirror-pod.ts';
import { enforcesMountableSecrets, ephemeralContainerSecretReferenceViolation, secretReferenceViolation } from './mountable-secrets.ts';
import { asPod, isMirrorPod, serviceAccountNameOf, specOf } from './pod.ts';
import { lookupRejection, unknownError } from './rejections.ts';
import { mountServiceAccountToken } from './token-volume.ts';

export interface ServiceAccountOptions {
  /** upstream LimitSecretReferences: enforce mountable secrets for every account (kube-apiserver: false). */
  limitSecretReferences?: boolean;
  /** upstream MountServiceAccountToken (kube-apiserver: true). */
  mountServiceAccountToken?: boolean;
}

export const definition: PluginDefinition<'lookups'> = {
  name: pluginName,
  needs: ['lookups'],
  lookups: ['serviceAccounts'],
  create: (ports) => serviceAccount(ports),
};

/** The plugin with upstream's defaults; the options exist for upstream's own test switches. */
export function serviceAccount(ports: ServiceAccountSource, options: ServiceAccountOptions = {}): AdmissionPlugin {
  const limitSecretReferences = options.limitSecretReferences ?? false;
  const mountToken = options.mountServiceAccountToken ?? true;
  // names.SimpleNameGenerator: the base plus five random lowercase alphanumerics.
  const generateName = (base: string) => base + ports.random.alphanumeric(5);

  async function validate(attributes: Attributes, context: RequestContext): Promise<void> {
    const pod = podToAdmit(attributes);
    if (!pod) return;
    if (attributes.operation === Operation.Update && attributes.subresource === 'ephemeralcontainers') {
      return validateEphemeralContainers(attributes, pod, context.deadline.signal);
    }
    if (attributes.operation !== Operation.Create) return;

    if (isMirrorPod(pod)) {
      const violation = mirrorPodViolation(pod);
      if (violation) throw forbidden(attributes, violation);
      return;
    }
    const serviceAccount = await requireServiceAccount(attributes, pod, context.deadline.signal, '%v');
    if (enforcesMountableSecrets(serviceAccount, limitSecretReferences)) {
      const violation = secretReferenceViolation(serviceAccount, pod);
      if (violation) throw forbidden(attributes, violation);
    }
  }

  async function validateEphemeralContainers(attributes: Attributes, pod: Pod, signal: AbortSignal): Promise<void> {
    const serviceAccount = await requireServiceAccount(attributes, pod, signal, '%w');
    if (!enforcesMountableSecrets(serviceAccount, limitSecretReferences)) return;
    const violation = ephemeralContainerSecretReferenceViolation(serviceAccount, pod);
    // Upstream returns this one unwrapped, so kube-apiserver answers 500 with the bare sentence.
    if (violation) throw unknownError(violation);
  }

  async function requireServiceAccount(attributes: Attributes, pod: Pod, signal: AbortSignal, wrap: '%w' | '%v'): Promise<ServiceAccount> {
    const name = serviceAccountNameOf(pod);
    if (name === '') {
      throw forbidden(attributes, `no service account specified for pod ${attributes.namespace}/${pod.metadata?.name ?? ''}`);
    }
    try {
      return await getServiceAccount(ports, attributes.namespace, name, signal);
    } catch (error) {
      throw lookupRejection(attributes, name, error, wrap);
    }
  }

  return {
    name: pluginName,
    handles: (operation) => operation === Operation.Create || operation === Operation.Update,
    // The default name, the token volume and its mounts, and the account's pull secrets.
    mutates: [
      ['spec', 'serviceAccountName'],
      ['spec', 'initContainers'],
      ['spec', 'containers'],
      ['spec', 'volumes'],
      ['spec', 'imagePullSecrets'],
    ],

    async admit(attributes, context) {
      const pod = podToAdmit(attributes);
      // Only creates are mutated; pod specs are (nearly) immutable afterwards.
      if (!pod || attributes.operation !== Operation.Create) return;
      // Never change a mirror pod's spec; only check what it references.
      if (isMirrorPod(pod)) return validate(attributes, context);

      const spec = specOf(pod);
      if (serviceAccountNameOf(pod) === '') spec.serviceAccountName = defaultServiceAccountName;
      const name = serviceAccountNameOf(pod);
      let serviceAccount: ServiceAccount;
      try {
        serviceAccount = await getServiceAccount(ports, attributes.namespace, name, context.deadline.signal);
      } catch (error) {
        throw lookupRejection(attributes, name, error, '%w');
      }
      if (mountToken && shouldAutomount(serviceAccount, pod)) mountServiceAccountToken(pod, generateName);
      const accountPullSecrets = serviceAccount.imagePullSecrets ?? [];
      // Upstream assigns a (possibly empty) copy; an empty list is no change on the wire.
      if ((spec.imagePullSecrets ?? []).length === 0 && accountPullSecrets.length > 0) {
        spec.imagePullSecrets = accountPullSecrets.map((s) => (s?.name === undefined ? {} : { name: s.name }));
      }
      // Upstream ends Admit with its own Validate, so a mutating-only chain still enforces it.
      return validate(attributes, context);
    },

    validate,
  };
}

/** upstream shouldIgnore: pods (main resource or ephemeralcontainers) carrying a Pod body. */
function podToAdmit(attributes: Attributes): Pod | undefined {
  const { group, resource } = attributes.resource;
  if (group !== '' || resource !== 'pods') return undefined;
  if (attributes.subresource !== '' && attributes.subresource !== 'ephemeralcontainers') return undefined;
  return asPod(attributes.object);
}

/** The pod's own setting wins, then the account's, then true (backwards compatible). */
export function shouldAutomount(serviceAccount: ServiceAccount, pod: Pod): boolean {
  const podPreference = pod.spec?.automountServiceAccountToken;
  if (typeof podPreference === 'boolean') return podPreference;
  const accountPreference = serviceAccount.automountServiceAccountToken;
  if (typeof accountPreference === 'boolean') return accountPreference;
  return true;
}
