// Server processes for the benchmark: each in its own child, pinned to one core (taskset) while
// this process, the load generator, runs on another; peak RSS read from /proc/<pid>/status, CPU
// time (user and system, every thread) from /proc/<pid>/stat.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';

const cores = availableParallelism();
const hasTaskset = spawnSync('taskset', ['--version'], { stdio: 'ignore' }).status === 0;

/** Core for servers and core for the load generator (the same one when there is only one). */
export const serverCore = 0;
export const loadCore = cores > 1 ? cores - 1 : 0;
export const pinning =
  hasTaskset && cores > 1
    ? `server on CPU ${serverCore}, load generator on CPU ${loadCore} (taskset)`
    : 'not pinned (taskset missing or one CPU)';

/**
 * The node flags (Dockerfile CMD, which the chart repeats) and the environment (ENV lines:
 * production mode, the malloc settings) the container image runs admission-chain with: measure what ships.
 */
export function imageRuntime(): { nodeFlags: string[]; env: Record<string, string> } {
  const dockerfile = readFileSync(join(import.meta.dirname, '..', 'Dockerfile'), 'utf8');
  const cmd = JSON.parse(/^CMD\s+(\[.*\])\s*$/m.exec(dockerfile)?.[1] ?? 'null') as string[] | null;
  const entry = cmd?.findIndex((arg) => arg.endsWith('.js')) ?? -1;
  if (cmd?.[0] !== 'node' || entry < 1) throw new Error('bench: cannot read the node flags from the Dockerfile CMD');
  const env: Record<string, string> = {};
  for (const [, name, value] of dockerfile.matchAll(/^ENV\s+([A-Za-z_][A-Za-z0-9_]*)=(\S+)\s*$/gm)) env[name!] = value!;
  return { nodeFlags: cmd.slice(1, entry), env };
}

/** Moves this process (the load generator) onto its own core. */
export function pinSelf(): void {
  if (hasTaskset && cores > 1) spawnSync('taskset', ['-a', '-cp', String(loadCore), String(process.pid)], { stdio: 'ignore' });
}

export { freePort } from '../test/support/free-port.ts';

import { post as postJson } from '../test/support/https-client.ts';

export interface ServerProcess {
  pid: number;
  /** Peak resident set size so far (VmHWM), MiB. */
  peakRssMiB(): number;
  /** CPU time used so far, user and system, milliseconds. */
  cpuMs(): number;
  stop(): Promise<void>;
}

/**
 * Starts `node <args>` on the server core (or the load core for helpers); with `cgroup`, the process
 * joins that cgroup before node starts (a shell writes its own pid there, then execs), so node
 * sees the cgroup's memory limit from its first instruction. `env` is added to this process's environment.
 */
export function startNode(
  args: string[],
  options: {
    core?: number;
    nodeOptions?: string[];
    stdout?: 'ignore' | 'pipe';
    cgroup?: string;
    env?: Record<string, string>;
    logFile?: string;
  } = {},
): { child: ChildProcess; process: ServerProcess } {
  return startPinned(process.execPath, [...(options.nodeOptions ?? []), ...args], options);
}

/** Starts any program as startNode starts node: pinned to a core, optionally in a cgroup, its output to `stdout` or a file. */
export function startPinned(
  executable: string,
  args: string[],
  options: { core?: number; stdout?: 'ignore' | 'pipe'; cgroup?: string; env?: Record<string, string>; logFile?: string } = {},
): { child: ChildProcess; process: ServerProcess } {
  const core = options.core ?? serverCore;
  const pinned = hasTaskset && cores > 1;
  const command = pinned ? 'taskset' : executable;
  const argv = pinned ? ['-c', String(core), executable, ...args] : args;
  const [file, fileArgs] =
    options.cgroup === undefined
      ? [command, argv]
      : ['sh', ['-c', 'echo $$ > "$0/cgroup.procs" && exec "$@"', options.cgroup, command, ...argv]];
  const log = options.logFile === undefined ? undefined : openSync(options.logFile, 'a');
  const child = spawn(file, fileArgs, {
    stdio: ['ignore', log ?? options.stdout ?? 'ignore', log ?? 'inherit'],
    env: { ...process.env, ...options.env },
  });
  if (log !== undefined) closeSync(log);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    child,
    process: {
      pid: child.pid!,
      peakRssMiB: () => {
        const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
        const kib = Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1]);
        return kib / 1024;
      },
      cpuMs: () => {
        // utime and stime, fields 14 and 15, in clock ticks (USER_HZ, 100 on Linux); the command
        // name before them may hold spaces, so count from its closing parenthesis.
        const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
        return (Number(fields[11]) + Number(fields[12])) * 10;
      },
      stop: async () => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        child.kill('SIGTERM');
        const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(killer);
      },
    },
  };
}

/** Waits until a line appears on the child's stdout (it must have been started with stdout: 'pipe'). */
export function waitForLine(child: ChildProcess, line: string, timeoutMs = 20_000): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`no "${line}" within ${timeoutMs} ms`)), timeoutMs);
    child.stdout?.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes(line)) {
        clearTimeout(timer);
        child.stdout?.resume();
        resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code} before "${line}"`)));
  });
}

/** POSTs one review until the server answers 200 (bounded). */
export async function waitForWebhook(url: string, body: string, ca: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const status = await post(url, body, ca).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) return;
    if (Date.now() > deadline) throw new Error(`${url} not answering 200 within ${timeoutMs} ms (last status ${status})`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** One POST with the bench's CA (the tests' HTTPS client). */
export async function post(url: string, body: string, ca: string): Promise<{ status: number; text: string }> {
  const { status, text } = await postJson(url, body, { ca });
  return { status, text };
}
