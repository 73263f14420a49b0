// The cluster side of what `serve` manages (registration, self-managed TLS) and of `unregister`:
// the stores through client-node. Loaded only when a flag or command asks for it.
import { createKubeRequests } from '../adapters/cluster/client/kube.ts';
import { clusterCertificateSecret } from '../adapters/cluster/registration/certificate-secret.ts';
import { clusterWebhookConfigurations } from '../adapters/cluster/registration/webhook-configurations.ts';
import type { ServeConfig } from '../config/serve-config.ts';
import type { Logger } from '../ports/logger.ts';
import { type Management, type ManagementOverrides, startManagement } from '../registration/manager.ts';
import { type HelmRelease, type Unregistered, unregisterWebhooks } from '../registration/unregister.ts';
import { loadKubeConfig } from './cluster.ts';

/** Each call to the API server the management loop makes is bounded by this. */
const callTimeoutMs = 10_000;

export async function startClusterManagement(config: ServeConfig, logger: Logger, overrides?: ManagementOverrides): Promise<Management> {
  const management = config.management!;
  const kubeConfig = loadKubeConfig(config.kubeconfig);
  const requests = createKubeRequests(kubeConfig);
  const tls = management.selfManagedTls;
  const name = management.webhookConfiguration;
  return startManagement(
    {
      ...(tls !== undefined
        ? { certificates: { store: clusterCertificateSecret(kubeConfig, requests, tls.secret, callTimeoutMs), policy: tls.policy } }
        : {}),
      ...(name !== undefined
        ? {
            registration: {
              store: clusterWebhookConfigurations(kubeConfig, requests, callTimeoutMs),
              name,
              caBundleFile: management.webhookCaBundleFile,
            },
          }
        : {}),
      files: { certFile: config.tlsCertFile, keyFile: config.tlsPrivateKeyFile },
      reconcileIntervalMs: management.reconcileIntervalMs,
      close: () => requests.close(),
    },
    logger,
    overrides,
  );
}

/** Deletes both webhook configurations of this name (with ownedBy, only those that release installed); each call bounded by timeoutMs. */
export async function unregisterFromCluster(
  kubeconfig: string | undefined,
  name: string,
  timeoutMs: number,
  ownedBy?: HelmRelease,
): Promise<Unregistered[]> {
  const kubeConfig = loadKubeConfig(kubeconfig);
  const requests = createKubeRequests(kubeConfig);
  try {
    return await unregisterWebhooks(clusterWebhookConfigurations(kubeConfig, requests, timeoutMs), name, ownedBy);
  } finally {
    await requests.close();
  }
}
