// certs/generate.ts, run as the CLI it is: the files it writes, their modes, the names the serving
// certificate is valid for, that the CA really signed it (a TLS handshake proves it), and --if-missing.
import { spawnSync } from 'node:child_process';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { once } from 'node:events';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tls from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import { repoRoot } from './tools.ts';

const script = join(repoRoot, 'certs', 'generate.ts');
const scratchDirs: string[] = [];
afterEach(() => {
  for (const dir of scratchDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), 'admission-chain-certs-'));
  scratchDirs.push(dir);
  return dir;
}

function runGenerate(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [script, ...args], { encoding: 'utf8', cwd: repoRoot });
  if (result.error) throw result.error;
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function sans(certificatePem: string): string[] {
  return (new X509Certificate(certificatePem).subjectAltName ?? '').split(', ').sort();
}

const fileMode = (path: string): number => statSync(path).mode & 0o777;

describe('certs/generate.ts', () => {
  it('writes ca.crt, tls.crt and tls.key (0600) for the service names plus localhost', () => {
    const out = join(scratch(), 'nested', 'dir');
    const result = runGenerate(['--service', 'webhook', '--namespace', 'platform', '--out', out]);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(fileMode(join(out, 'tls.key'))).toBe(0o600);
    expect(existsSync(join(out, 'ca.key'))).toBe(false);
    const cert = readFileSync(join(out, 'tls.crt'), 'utf8');
    const ca = new X509Certificate(readFileSync(join(out, 'ca.crt')));
    expect(sans(cert)).toEqual(
      [
        'DNS:localhost',
        'DNS:webhook',
        'DNS:webhook.platform',
        'DNS:webhook.platform.svc',
        'DNS:webhook.platform.svc.cluster.local',
        'IP Address:0:0:0:0:0:0:0:1',
        'IP Address:127.0.0.1',
      ].sort(),
    );
    const serving = new X509Certificate(cert);
    expect(ca.ca).toBe(true);
    expect(serving.ca).toBe(false);
    expect(serving.checkIssued(ca)).toBe(true);
    expect(serving.verify(ca.publicKey)).toBe(true);
    expect(serving.checkPrivateKey(createPrivateKey(readFileSync(join(out, 'tls.key'))))).toBe(true);
    const days = (Date.parse(serving.validTo) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(364);
    expect(days).toBeLessThan(366);
    expect(result.stdout).not.toMatch(/PRIVATE KEY/);
  });

  it('--no-localhost leaves only the in-cluster names; --days sets the validity', () => {
    const out = scratch();
    expect(runGenerate(['--service', 'ac', '--namespace', 'ns', '--out', out, '--no-localhost', '--days', '2']).status).toBe(0);
    const cert = readFileSync(join(out, 'tls.crt'), 'utf8');
    expect(sans(cert)).toEqual(['DNS:ac', 'DNS:ac.ns', 'DNS:ac.ns.svc', 'DNS:ac.ns.svc.cluster.local']);
    const days = (Date.parse(new X509Certificate(cert).validTo) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(1.9);
    expect(days).toBeLessThan(2.1);
  });

  it('serves TLS that a client trusting only ca.crt accepts for svc.ns.svc, and rejects for other names', async () => {
    const out = scratch();
    expect(runGenerate(['--service', 'ac', '--namespace', 'ns', '--out', out]).status).toBe(0);
    const server = tls.createServer({ cert: readFileSync(join(out, 'tls.crt')), key: readFileSync(join(out, 'tls.key')) }, (socket) =>
      socket.end('ok'),
    );
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    const handshake = (servername: string): Promise<string> =>
      new Promise((resolvePromise, reject) => {
        const socket = tls.connect({ host: '127.0.0.1', port, servername, ca: readFileSync(join(out, 'ca.crt')) }, () => {
          socket.setEncoding('utf8');
          socket.once('data', (data: string) => resolvePromise(data));
        });
        socket.once('error', reject);
      });
    try {
      await expect(handshake('ac.ns.svc')).resolves.toBe('ok');
      await expect(handshake('other.ns.svc')).rejects.toThrow(/altnames|does not match/i);
    } finally {
      server.close();
    }
  });

  it('--if-missing leaves existing tls.crt and tls.key untouched, and fills in a missing key', () => {
    const out = scratch();
    expect(runGenerate(['--out', out]).status).toBe(0);
    const before = readFileSync(join(out, 'tls.crt'), 'utf8');
    const second = runGenerate(['--out', out, '--if-missing']);
    expect(second.status).toBe(0);
    expect(second.stdout).toMatch(/already present/);
    expect(readFileSync(join(out, 'tls.crt'), 'utf8')).toBe(before);
    rmSync(join(out, 'tls.key'));
    expect(runGenerate(['--out', out, '--if-missing']).status).toBe(0);
    expect(readFileSync(join(out, 'tls.crt'), 'utf8')).not.toBe(before);
    expect(fileMode(join(out, 'tls.key'))).toBe(0o600);
  });

  it('without --if-missing replaces the files, and a loosened key file comes back as 0600', () => {
    const out = scratch();
    expect(runGenerate(['--out', out]).status).toBe(0);
    const before = readFileSync(join(out, 'tls.key'), 'utf8');
    chmodSync(join(out, 'tls.key'), 0o644);
    expect(runGenerate(['--out', out]).status).toBe(0);
    expect(readFileSync(join(out, 'tls.key'), 'utf8')).not.toBe(before);
    expect(fileMode(join(out, 'tls.key'))).toBe(0o600);
  });

  it.each([
    [['--bogus'], /Unknown option '--bogus'/],
    [['--service', 'Not_A_Label'], /--service must be a DNS-1123 label/],
    [['--namespace', ''], /--namespace must be a DNS-1123 label/],
    [['--days', '0'], /--days must be a positive integer/],
    [['positional'], /positional/i],
  ])('refuses %j with a usage message and writes nothing', (args, message) => {
    const out = scratch();
    const result = runGenerate([...args, '--out', out]);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).toMatch(/^usage: node certs\/generate\.ts/m);
    expect(existsSync(join(out, 'tls.key'))).toBe(false);
  });

  it('keeps what it writes into certs/ (the default --out) out of git', () => {
    for (const path of ['certs/tls.key', 'certs/tls.crt', 'certs/ca.crt']) {
      expect(spawnSync('git', ['check-ignore', '-q', path], { cwd: repoRoot }).status, path).toBe(0);
    }
    expect(spawnSync('git', ['check-ignore', '-q', 'certs/README.md'], { cwd: repoRoot }).status).toBe(1);
  });
});
