// test/e2e/run.sh needs a real cluster and is not run here; what CI can check is that it parses and
// that without a reachable cluster it says so and succeeds, touching nothing.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kubectlPath, repoRoot } from './tools.ts';

const script = join(repoRoot, 'test', 'e2e', 'run.sh');

function runScript(env: Record<string, string | undefined>): { status: number | null; stdout: string; stderr: string } {
  const { KUBECONFIG: _ignored, ...inherited } = process.env;
  const result = spawnSync('bash', [script], { encoding: 'utf8', env: { ...inherited, ...env }, timeout: 30_000 });
  if (result.error) throw result.error;
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('test/e2e/run.sh without a cluster', () => {
  it('is valid bash', () => {
    expect(spawnSync('bash', ['-n', script], { encoding: 'utf8' }).status).toBe(0);
  });

  it('skips with exit 0 when KUBECONFIG is not set (never falls back to ~/.kube/config)', () => {
    const result = runScript({});
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/KUBECONFIG is not set.*Skipping/);
  });

  it('skips with exit 0 when the KUBECONFIG cluster does not answer', () => {
    const dir = mkdtempSync(join(tmpdir(), 'admission-chain-e2e-'));
    try {
      const kubeconfig = join(dir, 'config');
      writeFileSync(
        kubeconfig,
        [
          'apiVersion: v1',
          'kind: Config',
          'current-context: nowhere',
          'clusters: [{name: nowhere, cluster: {server: "https://127.0.0.1:1"}}]',
          'contexts: [{name: nowhere, context: {cluster: nowhere, user: nobody}}]',
          'users: [{name: nobody, user: {token: none}}]',
          '',
        ].join('\n'),
      );
      const result = runScript({ KUBECONFIG: kubeconfig, KUBECTL: kubectlPath() });
      expect(result.status).toBe(0);
      expect(result.stdout).toContain(`no cluster reachable through KUBECONFIG=${kubeconfig}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
