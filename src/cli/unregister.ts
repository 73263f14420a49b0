// `admission-chain unregister --webhook-configuration NAME`: deletes the Validating- and
// MutatingWebhookConfiguration of that name (absent ones are fine), so the API server stops
// calling the webhook. The Helm chart runs it as its pre-delete hook, before Helm removes anything
// the webhook needs to answer, with --owned-by-helm-release: a copy of that Job applied by another
// tool at install then deletes nothing.
import type { Command } from 'commander';
import { parseDuration } from '../config/duration.ts';
import { type HelmRelease, parseHelmRelease, UnregisterOutcome } from '../registration/unregister.ts';
import { unregister } from '../wiring/index.ts';
import { CliError, type CliIO } from './io.ts';

interface UnregisterOptions {
  webhookConfiguration: string;
  ownedByHelmRelease?: string;
  kubeconfig?: string;
  timeout: string;
}

export function registerUnregisterCommand(program: Command, io: Pick<CliIO, 'stdout'>): void {
  program
    .command('unregister')
    .description('delete the webhook configurations of this name, so the API server stops calling the webhook (run before uninstalling)')
    .requiredOption('--webhook-configuration <name>', 'name of the Mutating/ValidatingWebhookConfiguration to delete')
    .option(
      '--owned-by-helm-release <namespace/name>',
      'delete only a configuration this Helm release installed (its meta.helm.sh/release-* annotations); keep any other',
    )
    .option('--kubeconfig <file>', 'kubeconfig (default: KUBECONFIG, then ~/.kube/config, then in-cluster)')
    .option('--timeout <duration>', 'deadline for each call to the API server', '10s')
    .action(async (options: UnregisterOptions) => {
      let timeoutMs: number;
      let ownedBy: HelmRelease | undefined;
      try {
        timeoutMs = parseDuration(options.timeout);
      } catch (error) {
        throw new CliError(`--timeout: ${(error as Error).message}`, 2);
      }
      try {
        ownedBy = options.ownedByHelmRelease === undefined ? undefined : parseHelmRelease(options.ownedByHelmRelease);
      } catch (error) {
        throw new CliError(`--owned-by-helm-release: ${(error as Error).message}`, 2);
      }
      let results: Awaited<ReturnType<typeof unregister>>;
      try {
        results = await unregister(options.kubeconfig, options.webhookConfiguration, timeoutMs, ownedBy);
      } catch (error) {
        throw new CliError((error as Error).message);
      }
      for (const { kind, outcome } of results) {
        const said = outcome === UnregisterOutcome.Kept ? `kept: not installed by Helm release ${options.ownedByHelmRelease}` : outcome;
        io.stdout.write(`${kind} ${options.webhookConfiguration}: ${said}\n`);
      }
    });
}
