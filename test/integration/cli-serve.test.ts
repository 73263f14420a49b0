// `admission-chain serve`: flag errors exit non-zero with one line (in-process through main()), and
// the real process takes its flags from the environment, serves, and drains on SIGTERM.
import { describe, expect, it } from 'vitest';
import { writeTestCertificates } from '../support/certs.ts';
import { runMain, spawnCli } from '../support/cli.ts';
import { get, post } from '../support/https-client.ts';
import { podReview } from '../support/reviews.ts';

describe('serve flags', () => {
  it.each([
    [['serve', '--cluster-state', 'examples/cluster-state.yaml'], '--tls-cert-file and --tls-private-key-file are required'],
    [
      ['serve', '--tls-cert-file', 'a', '--tls-private-key-file', 'b', '--plugins', 'Bogus'],
      'unknown admission plugin "Bogus"; known plugins: ',
    ],
    [
      ['serve', '--tls-cert-file', 'a', '--tls-private-key-file', 'b', '--request-timeout', 'soon'],
      '--request-timeout: invalid duration "soon"',
    ],
    [['serve', '--tls-cert-file', 'a', '--tls-private-key-file', 'b', '--port', '99999'], '--port "99999": expected a port number'],
    [['serve', '--tls-cert-file', 'a', '--tls-private-key-file', 'b', '--log-level', 'loud'], '--log-level "loud"'],
  ])('%j fails with a clear message', async (args, message) => {
    const result = await runMain(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });

  it('reports an unreadable certificate without a stack trace', async () => {
    const result = await runMain([
      'serve',
      '--cluster-state',
      'examples/cluster-state.yaml',
      '--tls-cert-file',
      '/nonexistent/tls.crt',
      '--tls-private-key-file',
      '/nonexistent/tls.key',
      '--port',
      '0',
      '--metrics-port',
      '0',
    ]);
    // This test failed once in a full parallel run, twice over several sessions, and never alone:
    // the whole output is in the failure message so the next occurrence says why.
    expect(result.code, `stdout: ${result.stdout}\nstderr: ${result.stderr}`).toBe(1);
    expect(result.stderr).toContain('cannot read TLS certificate /nonexistent/tls.crt');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('reports a malformed cluster state naming the document', async () => {
    const certs = await writeTestCertificates();
    const { writeFile } = await import('node:fs/promises');
    const state = `${certs.dir}/state.yaml`;
    await writeFile(state, 'apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\n');
    const result = await runMain([
      'serve',
      '--cluster-state',
      state,
      '--tls-cert-file',
      certs.certFile,
      '--tls-private-key-file',
      certs.keyFile,
      '--port',
      '0',
      '--metrics-port',
      '0',
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('document 2 (Pod "p"): unsupported kind Pod');
  });
});

describe('serve process', () => {
  it('takes flags from the environment, serves, and on SIGTERM goes unready then exits 0', async () => {
    const certs = await writeTestCertificates();
    const port = 20000 + Math.floor(Math.random() * 20000);
    const metricsPort = port + 1;
    const child = spawnCli(
      [
        'serve',
        '--cluster-state',
        'examples/cluster-state.yaml',
        '--tls-cert-file',
        certs.certFile,
        '--tls-private-key-file',
        certs.keyFile,
        '--bind-address',
        '127.0.0.1',
        '--shutdown-delay',
        '1500ms',
      ],
      { ADMISSION_CHAIN_PORT: String(port), ADMISSION_CHAIN_METRICS_PORT: String(metricsPort) },
    );
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      await expect
        .poll(async () => (await get(`http://127.0.0.1:${metricsPort}/readyz`).catch(() => ({ status: 0 }))).status, {
          timeout: 10_000,
          interval: 100,
        })
        .toBe(200);
      const res = await post(`https://127.0.0.1:${port}/mutate`, JSON.stringify(podReview()), { ca: certs.caCert });
      expect(res.json().response.patchType).toBe('JSONPatch');
      const denied = await post(`https://127.0.0.1:${port}/validate`, JSON.stringify(podReview({ uid: 'uid-2', pullPolicy: 'Never' })), {
        ca: certs.caCert,
      });
      expect(denied.json().response.allowed).toBe(false);
      child.kill('SIGTERM');
      await expect
        .poll(async () => (await get(`http://127.0.0.1:${metricsPort}/readyz`).catch(() => ({ status: 0 }))).status, {
          timeout: 1000,
          interval: 50,
        })
        .toBe(503);
      expect(await exited).toBe(0);
      const lines = child
        .output()
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(lines.map((l) => l.msg)).toEqual(
        expect.arrayContaining(['admission-chain serving', 'admission denied', 'draining: readiness is now false', 'drained; bye']),
      );
      // At the default level allowed requests are counted, not logged; denials are logged.
      expect(lines.map((l) => l.msg)).not.toContain('admission allowed');
      const denial = lines.find((l) => l.msg === 'admission denied');
      expect(denial).toMatchObject({
        uid: 'uid-2',
        kind: 'Pod',
        namespace: 'default',
        name: 'web',
        operation: 'CREATE',
        user: 'alice',
        decision: 'denied',
      });
      expect(JSON.stringify(denial)).not.toContain('nginx'); // no object bodies at info
    } finally {
      child.kill('SIGKILL');
    }
  });
});
