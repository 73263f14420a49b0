// Starts the in-cluster management `serve` was asked for, if any. The module that talks to the
// cluster (client-node) is imported only then: a webhook without these flags never loads it.
import type { ServeConfig } from '../config/serve-config.ts';
import type { Logger } from '../ports/logger.ts';
import type { Management, ManagementOverrides } from './manager.ts';

export type { Management, ManagementOverrides } from './manager.ts';

export async function startConfiguredManagement(config: ServeConfig, logger: Logger, overrides?: ManagementOverrides): Promise<Management | undefined> {
  const management = config.management;
  if (management === undefined || (management.webhookConfiguration === undefined && management.selfManagedTls === undefined)) return undefined;
  const { startManagement } = await import('./manager.ts');
  return startManagement(
    { ...management, kubeconfig: config.kubeconfig, tlsCertFile: config.tlsCertFile, tlsPrivateKeyFile: config.tlsPrivateKeyFile },
    logger,
    overrides,
  );
}
