// `admission-chain migrate`: reads a self-managed kube-apiserver's admission setup — its static Pod
// manifest, a kubeadm ClusterConfiguration, or its flags — with the AdmissionConfiguration file it
// names, and prints Helm values that reproduce it with this chart on a managed cluster.
import type { Command } from 'commander';
import { type MigrateOptions, migrate, renderValues } from '../migrate/migrate.ts';
import { type Platform, platforms } from '../migrate/platforms.ts';
import { type ApiServerSource, flagsSource, readApiServerSource } from '../migrate/sources.ts';
import { CliError, type CliIO, readInput } from './io.ts';

interface MigrateFlags {
  flags?: string;
  target?: string;
  root?: string;
}

export function registerMigrateCommand(program: Command, io: CliIO): void {
  program
    .command('migrate')
    .description("print Helm values that reproduce a self-managed kube-apiserver's admission plugins and their configuration")
    .argument(
      '[file]',
      'kube-apiserver static Pod manifest, kubeadm ClusterConfiguration, or a file of kube-apiserver flags ("-" for stdin)',
    )
    .option('--flags <flags>', 'kube-apiserver flags given directly, e.g. "--enable-admission-plugins=PodNodeSelector"')
    .option('--target <platform>', `the managed platform the values are for (${platforms.join(', ')}): plugins it runs itself are left out`)
    .option('--root <dir>', "a copy of the control-plane host's files: the paths kube-apiserver opens are read under it")
    .action(async (file: string | undefined, options: MigrateFlags) => {
      if ((file === undefined) === (options.flags === undefined))
        throw new CliError('give one source: a file (or - for stdin), or --flags', 2);
      if (options.target !== undefined && !(platforms as readonly string[]).includes(options.target))
        throw new CliError(`--target ${JSON.stringify(options.target)}: expected one of ${platforms.join(', ')}`, 2);
      const migrateOptions: MigrateOptions = {
        ...(options.target === undefined ? {} : { target: options.target as Platform }),
        ...(options.root === undefined ? {} : { root: options.root }),
      };
      let source: ApiServerSource;
      if (options.flags !== undefined) source = flagsSource(options.flags);
      else {
        const input = await readInput(file, io);
        source = readApiServerSource(input.text, input.source);
      }
      // Errors reading the source or its files reach main, which prints them and exits 1.
      const migration = await migrate(source, migrateOptions);
      io.stdout.write(renderValues(source, migration, migrateOptions));
      for (const note of migration.notes) io.stderr.write(`admission-chain migrate: ${note}\n`);
    });
}
