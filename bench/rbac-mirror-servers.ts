// Scenario 6's servers: the bare baseline and admission-chain in each --authorizer mode, each in its
// own process on the server core and, where this machine allows, its own memory cgroup limited as
// the chart limits the pod; admission-chain runs as the container image runs it (the bundle in
// dist/, the image's node flags and environment).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chartMemoryLimitMiB, createMemoryCgroup, type MemoryCgroup } from './memory-cgroup.ts';
import { freePort, imageRuntime, type ServerProcess, startNode, waitForLine } from './processes.ts';

const root = join(import.meta.dirname, '..');

export type Mode = 'sar' | 'rbac-mirror';

export interface Running {
  base: string;
  metricsUrl?: string;
  process: ServerProcess;
  /** Stops the process and removes its cgroup. */
  stop(): Promise<void>;
}

export interface ServerFiles {
  certFile: string;
  keyFile: string;
}

export const memoryLimitMiB = chartMemoryLimitMiB(readFileSync(join(root, 'charts/admission-chain/values.yaml'), 'utf8'));

/** A cgroup limited as the chart limits the pod, or undefined where this machine cannot make one. */
function cgroupFor(name: string): MemoryCgroup | undefined {
  const made = createMemoryCgroup(memoryLimitMiB, `admission-chain-bench-${process.pid}-${name}`);
  return 'unavailable' in made ? undefined : made;
}

export function cgroupsAvailable(): boolean {
  const probe = cgroupFor('probe');
  probe?.remove();
  return probe !== undefined;
}

export async function startBaseline(files: ServerFiles): Promise<Running> {
  const port = await freePort();
  const cgroup = cgroupFor(`baseline-${port}`);
  const { child, process } = startNode([join(root, 'bench/baseline.ts'), String(port), files.certFile, files.keyFile], {
    stdout: 'pipe',
    ...(cgroup && { cgroup: cgroup.path }),
  });
  await waitForLine(child, 'ready');
  return { base: `https://127.0.0.1:${port}`, process, stop: () => stopped(process, cgroup) };
}

export async function startOurs(files: ServerFiles, kubeconfig: string, mode: Mode): Promise<Running> {
  const [port, metricsPort] = [await freePort(), await freePort()];
  const { nodeFlags, env } = imageRuntime();
  const cgroup = cgroupFor(`${mode}-${port}`);
  const args = [
    join(root, 'dist/cli/run.js'),
    'serve',
    '--kubeconfig',
    kubeconfig,
    '--authorizer',
    mode,
    '--bind-address',
    '127.0.0.1',
    '--port',
    String(port),
    '--metrics-port',
    String(metricsPort),
    '--tls-cert-file',
    files.certFile,
    '--tls-private-key-file',
    files.keyFile,
    '--shutdown-delay',
    '0s',
    '--log-level',
    'warn',
  ];
  // BENCH_CPU_PROF=1, as for run.ts: CPU profiles in bench/profiles/.
  const profile = process.env.BENCH_CPU_PROF === '1' ? ['--cpu-prof', `--cpu-prof-dir=${join(root, 'bench/profiles')}`] : [];
  const { process: server } = startNode(args, { nodeOptions: [...nodeFlags, ...profile], env, ...(cgroup && { cgroup: cgroup.path }) });
  return {
    base: `https://127.0.0.1:${port}`,
    metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
    process: server,
    stop: () => stopped(server, cgroup),
  };
}

/** Waits until /readyz answers 200 (the mirror: its four caches have listed); returns the seconds it took from `since`. */
export async function waitReady(running: Running, since: number, timeoutMs = 60_000): Promise<number> {
  const readyz = running.metricsUrl!.replace(/\/metrics$/, '/readyz');
  for (const deadline = Date.now() + timeoutMs; ; await new Promise((r) => setTimeout(r, 20))) {
    const status = await fetch(readyz).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) return (performance.now() - since) / 1000;
    if (Date.now() > deadline) throw new Error(`${readyz} not 200 within ${timeoutMs} ms`);
  }
}

async function stopped(process: ServerProcess, cgroup: MemoryCgroup | undefined): Promise<void> {
  await process.stop();
  cgroup?.remove();
}
