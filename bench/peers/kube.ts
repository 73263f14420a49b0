// What the peers scenario asks of the real control plane: JSON requests as its admin (a client
// certificate in system:masters), the control plane's own kubectl for applying files, and pinning
// its processes to a core.
import { execFile, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { request } from 'node:https';
import type { ControlPlane } from '../../control-plane/control-plane.ts';

export interface ApiAnswer {
  status: number;
  body: unknown;
  text: string;
}

/** One request to the API server as admin; bounded in time. */
export function api(controlPlane: ControlPlane, method: string, path: string, body?: unknown): Promise<ApiAnswer> {
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = request(
      `${controlPlane.server}${path}`,
      {
        method,
        ca: controlPlane.caCert,
        cert: controlPlane.admin.cert,
        key: controlPlane.admin.key,
        timeout: 15_000,
        headers: {
          accept: 'application/json',
          ...(payload && { 'content-type': 'application/json', 'content-length': payload.length }),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown;
          try {
            parsed = JSON.parse(text);
          } catch {
            parsed = undefined;
          }
          resolve({ status: res.statusCode ?? 0, body: parsed, text });
        });
      },
    );
    req.once('timeout', () => req.destroy(new Error(`${method} ${path}: no answer within 15 s`)));
    req.once('error', reject);
    req.end(payload);
  });
}

/** The request, which must answer 2xx (409 too when `exists` is fine). */
export async function apiOk(controlPlane: ControlPlane, method: string, path: string, body?: unknown): Promise<unknown> {
  const answer = await api(controlPlane, method, path, body);
  if (answer.status < 200 || answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${answer.text.slice(0, 500)}`);
  return answer.body;
}

/** The control plane's kubectl as admin; rejects unless it exits 0. */
export function kubectl(controlPlane: ControlPlane, home: string, args: string[], timeoutMs = 120_000): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      controlPlane.binaries.kubectl,
      ['--kubeconfig', controlPlane.kubeconfigPath, ...args],
      { env: { PATH: process.env.PATH ?? '', HOME: home }, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error !== null) reject(new Error(`kubectl ${args.join(' ')} failed: ${stderr || error.message}`));
        else resolve(stdout);
      },
    );
  });
}

/** Polls `check` until it answers true, or throws with what it last said. */
export async function until(what: string, check: () => Promise<boolean | string>, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: boolean | string = false;
  for (;;) {
    last = await check().catch((error: Error) => error.message);
    if (last === true) return;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs / 1000} s (last: ${String(last).slice(0, 500)})`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/**
 * Pins every process whose command line mentions `marker` (the control plane's folder: etcd and
 * kube-apiserver name files in it) to `core`, all threads; the pids it pinned.
 */
export function pinProcessesMentioning(marker: string, core: number): number[] {
  const pinned: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    let cmdline: string;
    try {
      cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    if (!cmdline.includes(marker)) continue;
    if (spawnSync('taskset', ['-a', '-cp', String(core), entry], { stdio: 'ignore' }).status === 0) pinned.push(Number(entry));
  }
  return pinned;
}
