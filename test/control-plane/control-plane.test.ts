// `npm run control-plane` as a user runs it: etcd and kube-apiserver of the pinned releases come up
// on loopback, the printed kubeconfig reaches them with the same release's kubectl, and SIGTERM
// stops both and removes what they wrote.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { expect, it } from 'vitest';
import { builds, findBinaries } from '../../control-plane/binaries.ts';
import { repoRoot } from '../deploy/tools.ts';
import { runKubectl } from '../kubectl/kubectl.ts';
import { describeWithControlPlane } from './real-cluster.ts';

describeWithControlPlane('npm run control-plane', () => {
  it('serves the pinned release to the same release of kubectl, and on SIGTERM stops and cleans up', { timeout: 120_000 }, async () => {
    const binaries = findBinaries();
    if ('missing' in binaries) throw new Error(binaries.missing);
    const pinned = builds().find((b) => b.name === 'kubernetes')!.version;
    const child = spawn(process.execPath, [join(repoRoot, 'control-plane', 'main.ts')], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const home = await mkdtemp(join(tmpdir(), 'control-plane-test-'));
    try {
      const kubeconfig = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no kubeconfig printed within 90 s:\n${stderr}`)), 90_000);
        const look = () => {
          const match = /^kubeconfig: (\S+)$/m.exec(stdout);
          if (match?.[1] !== undefined) {
            clearTimeout(timer);
            resolve(match[1]);
          }
        };
        child.stdout.on('data', look);
        void exited.then((code) => reject(new Error(`control plane exited (${code}) before it was ready:\n${stderr}`)));
      });
      expect(stderr).toContain(`kube-apiserver ${pinned} is ready at https://127.0.0.1:`);

      const version = await runKubectl(home, kubeconfig, ['version', '-o', 'json'], { kubectl: binaries.kubectl });
      expect(version.code, version.stderr).toBe(0);
      const { clientVersion, serverVersion } = JSON.parse(version.stdout) as {
        clientVersion: { gitVersion: string };
        serverVersion: { gitVersion: string };
      };
      expect(clientVersion.gitVersion).toBe(pinned);
      expect(serverVersion.gitVersion).toBe(pinned);

      // A real write lands in the real etcd and reads back.
      const created = await runKubectl(home, kubeconfig, ['create', 'namespace', 'smoke'], { kubectl: binaries.kubectl });
      expect(created).toMatchObject({ code: 0, stdout: 'namespace/smoke created\n' });

      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(existsSync(dirname(kubeconfig))).toBe(false);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      await rm(home, { recursive: true, force: true });
    }
  });
});
