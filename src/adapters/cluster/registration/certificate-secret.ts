// The self-managed certificates' Secret through client-node: read with its resourceVersion, written
// by a JSON merge patch that carries that resourceVersion, so the API server refuses (409) a write
// over someone else's (optimistic concurrency), and touches no other field of the Secret.
import { CoreV1Api, type KubeConfig, PatchStrategy, setHeaderOptions, type V1Secret } from '@kubernetes/client-node';
import type { CertificateSecretStore, SecretContents, StoredSecret } from '../../../ports/certificate-secret-store.ts';
import { boundedCall, KubeCallError } from '../client/bounded-call.ts';
import type { KubeRequests } from '../client/kube.ts';

export function clusterCertificateSecret(
  kubeConfig: KubeConfig,
  requests: KubeRequests,
  target: { namespace: string; name: string },
  timeoutMs: number,
): CertificateSecretStore {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const context = { requests, timeoutMs };
  const url = `/api/v1/namespaces/${target.namespace}/secrets/${target.name}`;
  return {
    description: `${target.namespace}/${target.name}`,
    async read(signal) {
      const secret = await boundedCall(context, { method: 'GET', url }, (options) => core.readNamespacedSecret(target, options), signal);
      return stored(secret);
    },
    async replace(contents, resourceVersion, signal) {
      const data = Object.fromEntries(Object.entries(contents).map(([key, value]) => [key, Buffer.from(value ?? '').toString('base64')]));
      const body = { metadata: { resourceVersion }, data };
      try {
        const secret = await boundedCall(
          context,
          { method: 'PATCH', url },
          (options) => core.patchNamespacedSecret({ ...target, body }, setHeaderOptions('Content-Type', PatchStrategy.MergePatch, options)),
          signal,
        );
        return stored(secret);
      } catch (error) {
        if (error instanceof KubeCallError && error.code === 409) return 'conflict';
        throw error;
      }
    },
  };
}

function stored(secret: V1Secret): StoredSecret {
  const contents: SecretContents = {};
  for (const [key, value] of Object.entries(secret.data ?? {}))
    (contents as Record<string, string>)[key] = Buffer.from(value, 'base64').toString('utf8');
  return { contents, resourceVersion: secret.metadata?.resourceVersion ?? '' };
}
