// `serve` assembled: the logger and metrics, the in-cluster management (self-managed TLS before
// the listener reads its certificate, then registration once it answers), the backend and chain,
// and the two listeners; shut down in the reverse order. The CLI parses flags and calls this; the
// tests call it with a parsed config.

import type { ServeConfig } from '../config/serve-config.ts';
import { createLogger } from '../observability/logger.ts';
import { createMetrics } from '../observability/metrics.ts';
import { registrationRecorder } from '../observability/registration-metrics.ts';
import { ConfigurationKind } from '../ports/webhook-configuration-store.ts';
import { type RunningServer, startServer } from '../server/server.ts';
import { serveBackendConfig } from './backend.ts';
import { composeAdmission, type ManagementOverrides, StartupError, startServeManagement } from './index.ts';

/** Wires everything from the config and starts listening. Fails with a StartupError saying why. */
export async function startWebhook(
  config: ServeConfig,
  stdout: NodeJS.WritableStream | { write(text: string): unknown },
  overrides?: ManagementOverrides,
): Promise<RunningServer> {
  const logger = createLogger(config.logLevel, stdout as NodeJS.WritableStream);
  const management = await startServeManagement(config, logger, overrides).catch((error: Error) => {
    throw new StartupError(error.message, false);
  });
  const metrics = createMetrics();
  const admission = await composeAdmission({
    backend: serveBackendConfig(config),
    selection: config.plugins,
    admissionControlConfigFile: config.admissionControlConfigFile,
    pluginExemptionsFile: config.pluginExemptionsFile,
    logger,
    metrics,
    warn: (warning) => logger.warn({ warning }, 'admission configuration ignored'),
  }).catch(async (error: unknown) => {
    await management?.stop();
    throw error;
  });
  const { backend, chain } = admission;
  void backend.ready().catch((error: Error) => logger.error({ err: error.message }, 'backend failed to become ready'));
  let server: RunningServer;
  try {
    server = await startServer({
      host: config.host,
      port: config.port,
      metricsPort: config.metricsPort,
      certFile: config.tlsCertFile,
      keyFile: config.tlsPrivateKeyFile,
      clientCaFile: config.clientCaFile,
      maxBodyBytes: config.maxRequestBodyBytes,
      maxInFlightBytes: config.maxInFlightBytes,
      maxConnections: config.maxConnections,
      chain,
      logger,
      metrics,
      requestTimeoutMs: config.requestTimeoutMs,
      backendNotReady: () => backend.notReadyReasons(),
      shutdownDelayMs: config.shutdownDelayMs,
      drainTimeoutMs: config.drainTimeoutMs,
    });
  } catch (error) {
    await backend.close();
    await management?.stop();
    throw new StartupError((error as Error).message, false);
  }
  // The chart installs a configuration for each phase an enabled plugin runs in.
  const expected = [
    ...(chain.mutatingPlugins.length > 0 ? [ConfigurationKind.Mutating] : []),
    ...(chain.validatingPlugins.length > 0 ? [ConfigurationKind.Validating] : []),
  ];
  management?.run(() => server.notReadyReasons(), { expected, recorder: registrationRecorder(metrics.registry) });
  const shutdown = server.shutdown;
  return Object.assign(server, {
    // Registration stops first (it probes the listener), the listeners drain, then the backend closes.
    shutdown: async () => {
      await management?.stop();
      await shutdown();
      await backend.close();
    },
  });
}
