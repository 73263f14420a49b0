// A real Prometheus (Debian's package) on loopback for one test file: a random free port, a
// throw-away data directory, a 1 s scrape interval, our rule file loaded, and always stopped.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { freePort } from '../support/free-port.ts';

export interface RunningPrometheus {
  url: string;
  /** Instant query through the HTTP API; the result vector. */
  query(promql: string): Promise<Array<{ metric: Record<string, string>; value: [number, string] }>>;
  api<T>(path: string): Promise<T>;
  /** The process log so far (stderr), for failure messages. */
  log(): string;
  stop(): Promise<void>;
}

export { freePort };

export async function startPrometheus(options: {
  targets: string[];
  ruleFiles?: string[];
  readyTimeoutMs?: number;
}): Promise<RunningPrometheus> {
  const dir = await mkdtemp(join(tmpdir(), 'admission-chain-prometheus-'));
  const configFile = join(dir, 'prometheus.yml');
  await writeFile(
    configFile,
    stringify({
      global: { scrape_interval: '1s', scrape_timeout: '900ms', evaluation_interval: '1s' },
      rule_files: options.ruleFiles ?? [],
      scrape_configs: [{ job_name: 'admission-chain', static_configs: [{ targets: options.targets }] }],
    }),
  );
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(
    'prometheus',
    [
      `--config.file=${configFile}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(killer);
    }
    await rm(dir, { recursive: true, force: true });
  };

  const api = async <T>(path: string): Promise<T> => {
    const res = await fetch(`${url}${path}`, { signal: AbortSignal.timeout(5000) });
    const body = (await res.json()) as { status: string; data: T; error?: string };
    if (body.status !== 'success') throw new Error(`Prometheus ${path}: ${body.error ?? res.status}`);
    return body.data;
  };

  const deadline = Date.now() + (options.readyTimeoutMs ?? 20_000);
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`prometheus exited with ${child.exitCode}: ${stderr}`);
    }
    const ready = await fetch(`${url}/-/ready`, { signal: AbortSignal.timeout(1000) }).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`prometheus not ready within ${options.readyTimeoutMs ?? 20_000} ms: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }

  return {
    url,
    api,
    query: async (promql) =>
      (
        await api<{ result: Array<{ metric: Record<string, string>; value: [number, string] }> }>(
          `/api/v1/query?query=${encodeURIComponent(promql)}`,
        )
      ).result,
    log: () => stderr,
    stop,
  };
}

/** Polls until check returns true, at most timeoutMs; the error names what never happened. */
export async function waitUntil(what: string, check: () => Promise<boolean>, timeoutMs: number, intervalMs = 250): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
