// The production build (what the container image runs): rolldown bundles src/ and its
// dependencies into dist/, and the bundle runs with no node_modules anywhere near it, as in the
// image, and serves. The cluster backend (client-node) is a chunk of its own, loaded only against
// a cluster.
import { copyFile, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundle as buildBundle } from '../../build/bundle.ts';
import { outDir as defaultOutDir, entries } from '../../build/entries.ts';
import { writeTestCertificates } from '../support/certs.ts';
import { runCli, spawnCli } from '../support/cli.ts';
import { freePort } from '../support/free-port.ts';
import { get, post } from '../support/https-client.ts';
import { podReview } from '../support/reviews.ts';
import { repoRoot } from './tools.ts';

let app: string;
/** The bundle's entry point as the image starts it. */
const bundle = (...flags: string[]) => ({ entry: [...flags, join(app, defaultOutDir, 'cli/run.js')], cwd: app });

describe('production build', () => {
  beforeAll(async () => {
    // Outside the repository, like /app in the image: only dist/ and package.json.
    app = await mkdtemp(join(tmpdir(), 'admission-chain-build-'));
    await buildBundle(join(app, defaultOutDir));
    await copyFile(join(repoRoot, 'package.json'), join(app, 'package.json'));
  }, 120_000);

  afterAll(async () => {
    await rm(app, { recursive: true, force: true });
  });

  it('emits one JavaScript file per entry point plus chunks, with no TypeScript and no tests', async () => {
    const files = (await readdir(join(app, defaultOutDir), { recursive: true })).map(String);
    for (const name of Object.keys(entries)) expect(files).toContain(`${name}.js`);
    expect(files.some((f) => f.endsWith('.ts'))).toBe(false);
    expect(files.some((f) => /test/.test(f))).toBe(false);
    const entry = await readFile(join(app, defaultOutDir, 'cli/run.js'), 'utf8');
    expect(entry).not.toMatch(/from\s*["'][^"']*\.ts["']/);
    // client-node is not in the entry chunk: the local backend never loads it. Its generated models
    // (V1SubjectAccessReviewSpec) are in one chunk, which the cluster backend and the in-cluster
    // management (registration, self-managed TLS, unregister) share.
    const clientNodeMarker = 'V1SubjectAccessReviewSpec';
    expect(entry).not.toContain(clientNodeMarker);
    expect(entry).not.toContain('createSubjectAccessReview');
    const chunks = files.filter((f) => f.endsWith('.js') && !f.startsWith('cli'));
    const withClientNode = [];
    for (const chunk of chunks)
      if ((await readFile(join(app, defaultOutDir, chunk), 'utf8')).includes(clientNodeMarker)) withClientNode.push(chunk);
    expect(withClientNode).toHaveLength(1);
  });

  it('runs without node_modules: the review command answers an AdmissionReview', async () => {
    await expect(readdir(join(app, 'node_modules'))).rejects.toThrow();
    const result = await runCli(['review', '--cluster-state', join(repoRoot, 'examples/cluster-state.yaml')], {
      stdin: JSON.stringify(podReview({ pullPolicy: 'Never' })),
      ...bundle(),
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).response).toMatchObject({ allowed: true, patchType: 'JSONPatch' });
  });

  it('prints the package version and reports bad input without a stack trace', async () => {
    const version = (JSON.parse(await readFile(join(repoRoot, 'package.json'), 'utf8')) as { version: string }).version;
    expect((await runCli(['--version'], bundle())).stdout.trim()).toBe(version);
    const bad = await runCli(['review', '--cluster-state', join(app, 'missing.yaml')], { stdin: '{}', ...bundle() });
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/missing\.yaml/);
    expect(bad.stderr).not.toMatch(/\n\s+at /);
  });

  it("serves from the bundle with the image's node flags: answers, logs a denial, drains on SIGTERM", async () => {
    const certs = await writeTestCertificates();
    const [port, metricsPort] = [await freePort(), await freePort()];
    const child = spawnCli(
      [
        'serve',
        '--cluster-state',
        join(repoRoot, 'examples/cluster-state.yaml'),
        '--tls-cert-file',
        certs.certFile,
        '--tls-private-key-file',
        certs.keyFile,
        '--bind-address',
        '127.0.0.1',
        '--port',
        String(port),
        '--metrics-port',
        String(metricsPort),
        '--shutdown-delay',
        '0s',
      ],
      {},
      bundle('--max-semi-space-size=4', '--no-parallel-scavenge'),
    );
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      await expect
        .poll(async () => (await get(`http://127.0.0.1:${metricsPort}/readyz`).catch(() => ({ status: 0 }))).status, {
          timeout: 10_000,
          interval: 100,
        })
        .toBe(200);
      const mutated = await post(`https://127.0.0.1:${port}/mutate?timeout=10s`, JSON.stringify(podReview()), { ca: certs.caCert });
      expect(mutated.json().response).toMatchObject({ allowed: true, patchType: 'JSONPatch' });
      const denied = await post(
        `https://127.0.0.1:${port}/validate`,
        JSON.stringify(podReview({ uid: 'uid-bundle', pullPolicy: 'Never' })),
        { ca: certs.caCert },
      );
      expect(denied.json().response).toMatchObject({ uid: 'uid-bundle', allowed: false });
      expect((await get(`http://127.0.0.1:${metricsPort}/metrics`)).text).toContain(
        'admission_chain_requests_total{webhook="mutate",operation="CREATE",allowed="true",code="200"} 1',
      );
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      const messages = child
        .output()
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as { msg: string }).msg);
      expect(messages).toEqual(['admission-chain serving', 'admission denied', 'draining: readiness is now false', 'drained; bye']);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('loads the cluster backend chunk: serve --kubeconfig with an unreadable kubeconfig fails clearly', async () => {
    const result = await runCli(
      [
        'serve',
        '--kubeconfig',
        join(app, 'no-kubeconfig'),
        '--tls-cert-file',
        join(app, 'x.crt'),
        '--tls-private-key-file',
        join(app, 'x.key'),
      ],
      bundle(),
    );
    expect(result.code).not.toBe(0);
    // Worded by the cluster backend itself, so its chunk loaded and ran.
    expect(result.stderr).toContain(`cannot load kubeconfig ${join(app, 'no-kubeconfig')}`);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('runs the chart’s pre-delete hook command from the bundle: unregister loads its chunks and fails clearly without a cluster', async () => {
    const result = await runCli(['unregister', '--webhook-configuration=ac', '--kubeconfig', join(app, 'no-kubeconfig')], bundle());
    expect(result).toMatchObject({ code: 1, stdout: '' });
    expect(result.stderr).toBe(
      `admission-chain: cannot load kubeconfig ${join(app, 'no-kubeconfig')}: ENOENT: no such file or directory, open '${join(app, 'no-kubeconfig')}'\n`,
    );
  });
});
