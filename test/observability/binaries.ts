// Finds Prometheus' binaries (Debian's `prometheus` package; .ci/run installs it) and runs them.
// A missing binary turns the tests that need it into a visible, named skip rather than a pass.
import { spawn, spawnSync } from 'node:child_process';

function installed(binary: string): boolean {
  const probe = spawnSync(binary, ['--version'], { stdio: 'ignore', timeout: 10_000 });
  return probe.error === undefined && probe.status === 0;
}

export const hasPromtool = installed('promtool');
export const hasPrometheus = installed('prometheus');

/** Appended to a test's name when it cannot run here, so the skip says why. */
export function needs(binary: 'promtool' | 'prometheus'): string {
  const present = binary === 'promtool' ? hasPromtool : hasPrometheus;
  return present ? '' : ` [skipped: ${binary} not on PATH; apt-get install prometheus]`;
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs promtool with the given arguments (and stdin), bounded in time. */
export function promtool(args: string[], options: { stdin?: string; cwd?: string; timeoutMs?: number } = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('promtool', args, { cwd: options.cwd, stdio: ['pipe', 'pipe', 'pipe'], timeout: options.timeoutMs ?? 20_000 });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.stdin ?? '');
  });
}
