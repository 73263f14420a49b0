// The command line for tests: in-process through main(argv, io) with captured streams (what almost
// every test wants), or the real bin/admission-chain.js on the pinned Node as a child process (one
// smoke test per command); `entry` runs another build of it instead (node flags, then the script),
// e.g. the production bundle.
import { type ChildProcess, spawn } from 'node:child_process';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { main } from '../../src/cli/main.ts';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
export const nodeBinary = process.execPath;
export const cliPath = `${repoRoot}bin/admission-chain.js`;

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `admission-chain ARGS` in this process: stdin given as text, stdout and stderr captured. */
export async function runMain(args: string[], options: { stdin?: string } = {}): Promise<CliResult & { code: number }> {
  let stdout = '';
  let stderr = '';
  const code = await main(['node', 'admission-chain', ...args], {
    stdin: Readable.from(options.stdin === undefined ? [] : [Buffer.from(options.stdin)]),
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
  });
  return { code, stdout, stderr };
}

export interface CliEntry {
  /** Node flags and the script to run (default: the checkout's bin/admission-chain.js). */
  entry?: string[];
  cwd?: string;
}

export function runCli(
  args: string[],
  options: { stdin?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } & CliEntry = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(nodeBinary, [...(options.entry ?? [cliPath]), ...args], {
      cwd: options.cwd ?? repoRoot,
      env: options.env ?? process.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`CLI timed out: ${args.join(' ')}\n${stderr}`));
    }, options.timeoutMs ?? 20_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(options.stdin ?? '');
  });
}

export function spawnCli(args: string[], env: NodeJS.ProcessEnv = {}, options: CliEntry = {}): ChildProcess & { output: () => string } {
  const child = spawn(nodeBinary, [...(options.entry ?? [cliPath]), ...args], {
    cwd: options.cwd ?? repoRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  return Object.assign(child, { output: () => output });
}
