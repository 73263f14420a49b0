// `admission-chain serve`: the webhook, on the cluster (default) or a local cluster-state file.
import type { Command } from 'commander';
import { addServeOptions, parseServeConfig, type RawServeOptions, type ServeConfig } from '../config/serve-config.ts';
import { createLogger } from '../observability/logger.ts';
import { createMetrics } from '../observability/metrics.ts';
import { registrationRecorder } from '../observability/registration-metrics.ts';
import { ConfigurationKind } from '../ports/webhook-configuration-store.ts';
import { type RunningServer, startServer } from '../server/server.ts';
import {
  type Admission,
  composeAdmission,
  type ManagementOverrides,
  pluginCatalog,
  StartupError,
  startManagement,
} from '../wiring/index.ts';
import { CliError, type CliIO } from './io.ts';
export function registerServeCommand(program: Command, io: CliIO): void {
  addServeOptions(program.command('serve').description('run the admission webhook (HTTPS) and its health/metrics listener')).action(
    async (raw: RawServeOptions) => {
      let config: ServeConfig;
      try {
        config = parseServeConfig(raw, pluginCatalog.ordered, pluginCatalog.defaults);
      } catch (error) {
        throw new CliError((error as Error).message, 2);
      }
      const server = await runServer(config, io);
      await new Promise<void>((resolve) => {
        const stop = (signal: string) => {
          process.off('SIGTERM', onTerm);
          process.off('SIGINT', onInt);
          void server.shutdown().then(resolve, resolve);
          void signal;
        };
        const onTerm = () => stop('SIGTERM');
        const onInt = () => stop('SIGINT');
        process.on('SIGTERM', onTerm);
        process.on('SIGINT', onInt);
      });
    },
  );
}

/** Wires everything from the config and starts listening; used by the CLI and the tests. */
export async function runServer(
  config: ServeConfig,
  io: Pick<CliIO, 'stdout'>,
  overrides?: ManagementOverrides,
): Promise<RunningServer & { closeBackend(): Promise<void> }> {
  const logger = createLogger(config.logLevel, io.stdout as NodeJS.WritableStream);
  // Self-managed TLS writes the serving certificate before the server reads it.
  const management = await startManagement(config, logger, overrides).catch((error: Error) => {
    throw new CliError(error.message);
  });
  const metrics = createMetrics();
  let admission: Admission;
  try {
    admission = await composeAdmission({
      backend: config,
      selection: config.plugins,
      admissionControlConfigFile: config.admissionControlConfigFile,
      logger,
      metrics,
      warn: (warning) => logger.warn({ warning }, 'admission configuration ignored'),
    });
  } catch (error) {
    await management?.stop();
    throw error instanceof StartupError ? new CliError(error.message, error.usage ? 2 : 1) : error;
  }
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
    throw new CliError((error as Error).message);
  }
  // The chart installs a configuration for each phase an enabled plugin runs in.
  const expected = [
    ...(chain.mutatingPlugins.length > 0 ? [ConfigurationKind.Mutating] : []),
    ...(chain.validatingPlugins.length > 0 ? [ConfigurationKind.Validating] : []),
  ];
  management?.run(() => server.notReadyReasons(), { expected, recorder: registrationRecorder(metrics.registry) });
  const shutdown = server.shutdown;
  return Object.assign(server, {
    shutdown: async () => {
      await management?.stop();
      await shutdown();
      await backend.close();
    },
    closeBackend: () => backend.close(),
  });
}
