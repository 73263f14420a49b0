// The build step npm test runs first, on a machine without Go: a visible reason and exit 0, so the
// real-control-plane tests report their skip; under CI=true an error, since CI must run them.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../deploy/tools.ts';

function buildWithoutGo(env: Record<string, string>): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(repoRoot, 'control-plane', 'build.ts')],
      { cwd: repoRoot, env: { PATH: '/nonexistent', ...env }, timeout: 20_000 },
      (error, _stdout, stderr) => resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stderr }),
    );
  });
}

describe('control-plane/build.ts without a Go toolchain', () => {
  it('says why the real-control-plane tests will be skipped, and succeeds', async () => {
    const home = await mkdtemp(join(tmpdir(), 'build-no-go-'));
    try {
      const result = await buildWithoutGo({ HOME: home });
      expect(result).toEqual({
        code: 0,
        stderr:
          'control-plane: no Go toolchain on PATH, so kube-apiserver, kubectl and etcd cannot be built and the real-control-plane tests will be skipped\n',
      });
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  it('fails under CI, which must run those tests', async () => {
    const home = await mkdtemp(join(tmpdir(), 'build-no-go-'));
    try {
      const result = await buildWithoutGo({ HOME: home, CI: 'true' });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/no Go toolchain on PATH.*; CI must run them\n$/);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});
