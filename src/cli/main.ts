// The admission-chain command line: serve, review, explain, audit, authorize, unregister, migrate and completion.
import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { registerAuditCommand } from './audit.ts';
import { registerAuthorizeCommand } from './authorize.ts';
import { registerCompletionCommand } from './completion.ts';
import { registerExplainCommand } from './explain.ts';
import { CliError, type CliIO, processIO } from './io.ts';
import { registerMigrateCommand } from './migrate.ts';
import { registerReviewCommand } from './review.ts';
import { registerServeCommand } from './serve.ts';
import { registerUnregisterCommand } from './unregister.ts';

export async function main(argv: readonly string[], io: CliIO = processIO): Promise<number> {
  const program = new Command('admission-chain')
    .description("kube-apiserver's in-tree admission plugins as one admission webhook")
    .version(packageVersion(), '--version', 'print the version')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) })
    .showHelpAfterError(false);
  registerServeCommand(program, io);
  registerReviewCommand(program, io);
  registerExplainCommand(program, io);
  registerAuditCommand(program, io);
  registerAuthorizeCommand(program, io);
  registerUnregisterCommand(program, io);
  registerMigrateCommand(program, io);
  registerCompletionCommand(program, io);
  try {
    await program.parseAsync(argv as string[]);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander has already printed its message. Usage errors exit 2 so that 1 keeps meaning
      // "no" for `authorize` (as for `kubectl auth can-i`); help and version exit 0.
      if (error.code.startsWith('commander.') && error.exitCode !== 0) return 2;
      return error.exitCode;
    }
    if (error instanceof CliError) {
      io.stderr.write(`admission-chain: ${error.message}\n`);
      return error.exitCode;
    }
    const message = error instanceof Error ? error.message : String(error);
    io.stderr.write(`admission-chain: ${message}\n`);
    return 1;
  }
}

/** The package's version (package.json sits two levels above both src/cli and dist/cli). */
function packageVersion(): string {
  try {
    return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}
