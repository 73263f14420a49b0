// The webhook configurations through client-node. Writes are JSON merge patches that carry the
// resourceVersion read (the API server answers 409 when someone wrote in between) and replace the
// webhooks list as a whole; no other field is touched, so Helm keeps owning what it rendered.
import {
  AdmissionregistrationV1Api,
  type KubeConfig,
  PatchStrategy,
  setHeaderOptions,
  type V1MutatingWebhookConfiguration,
  type V1ValidatingWebhookConfiguration,
} from '@kubernetes/client-node';
import {
  ConfigurationKind,
  type LiveConfiguration,
  type WebhookConfigurationStore,
  type WebhookJson,
} from '../../../ports/webhook-configuration-store.ts';
import { boundedCall, KubeCallError } from '../client/bounded-call.ts';
import type { KubeRequests } from '../client/kube.ts';

const resources = {
  [ConfigurationKind.Mutating]: 'mutatingwebhookconfigurations',
  [ConfigurationKind.Validating]: 'validatingwebhookconfigurations',
} as const;

export function clusterWebhookConfigurations(kubeConfig: KubeConfig, requests: KubeRequests, timeoutMs: number): WebhookConfigurationStore {
  const api = kubeConfig.makeApiClient(AdmissionregistrationV1Api);
  const context = { requests, timeoutMs };
  const url = (kind: ConfigurationKind, name: string) => `/apis/admissionregistration.k8s.io/v1/${resources[kind]}/${name}`;
  const notFound = (error: unknown) => error instanceof KubeCallError && error.code === 404;

  return {
    async read(kind, name, signal) {
      try {
        const object = await boundedCall(
          context,
          { method: 'GET', url: url(kind, name) },
          (options) =>
            kind === ConfigurationKind.Mutating
              ? api.readMutatingWebhookConfiguration({ name }, options)
              : api.readValidatingWebhookConfiguration({ name }, options),
          signal,
        );
        return live(object);
      } catch (error) {
        if (notFound(error)) return undefined;
        throw error;
      }
    },
    async writeWebhooks(kind, name, change, signal) {
      const body = { metadata: { resourceVersion: change.resourceVersion, annotations: change.annotations }, webhooks: change.webhooks };
      try {
        const object = await boundedCall(
          context,
          { method: 'PATCH', url: url(kind, name) },
          (options) => {
            const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch, options);
            return kind === ConfigurationKind.Mutating
              ? api.patchMutatingWebhookConfiguration({ name, body }, merge)
              : api.patchValidatingWebhookConfiguration({ name, body }, merge);
          },
          signal,
        );
        return live(object);
      } catch (error) {
        if (error instanceof KubeCallError && error.code === 409) return 'conflict';
        throw error;
      }
    },
    async delete(kind, name, signal) {
      try {
        await boundedCall(
          context,
          { method: 'DELETE', url: url(kind, name) },
          (options) =>
            kind === ConfigurationKind.Mutating
              ? api.deleteMutatingWebhookConfiguration({ name }, options)
              : api.deleteValidatingWebhookConfiguration({ name }, options),
          signal,
        );
        return true;
      } catch (error) {
        if (notFound(error)) return false;
        throw error;
      }
    },
  };
}

// client-node's models carry the JSON field names; a JSON round trip drops the unset ones.
function live(object: V1MutatingWebhookConfiguration | V1ValidatingWebhookConfiguration): LiveConfiguration {
  return {
    resourceVersion: object.metadata?.resourceVersion ?? '',
    annotations: { ...object.metadata?.annotations },
    webhooks: JSON.parse(JSON.stringify(object.webhooks ?? [])) as WebhookJson[],
  };
}
