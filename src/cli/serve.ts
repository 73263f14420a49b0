// `admission-chain serve`: the webhook, on the cluster (default) or a local cluster-state file. The
// flags are parsed here; src/wiring assembles and starts the server.
import type { Command } from 'commander';
import { addServeOptions, parseServeConfig, type RawServeOptions, type ServeConfig } from '../config/serve-config.ts';
import { pluginCatalog, StartupError } from '../wiring/index.ts';
import { startWebhook } from '../wiring/server.ts';
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
      const server = await startWebhook(config, io.stdout).catch((error: unknown) => {
        throw error instanceof StartupError ? new CliError(error.message, error.usage ? 2 : 1) : error;
      });
      // SIGTERM or SIGINT drains and stops; the command returns once it has.
      await new Promise<void>((resolve) => {
        const stop = () => {
          process.off('SIGTERM', stop);
          process.off('SIGINT', stop);
          void server.shutdown().then(resolve, resolve);
        };
        process.on('SIGTERM', stop);
        process.on('SIGINT', stop);
      });
    },
  );
}
