// A real control plane on loopback — etcd and kube-apiserver built from their Go modules — with the
// flags a local test control plane needs (controller-runtime's envtest sets the same): a generated
// CA, serving and admin client certificates, a service-account signing key, RBAC authorization, and
// etcd without fsync on a temporary data dir. No controller manager runs, so nothing creates
// namespaces' default service accounts or garbage-collects: callers create what they rely on.
import { type ChildProcess, spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import selfsigned from 'selfsigned';
import { generateAuthority, issueServingCertificate, type KeyPairPem } from '../src/tls/generate.ts';
import { type Binaries, findBinaries } from './binaries.ts';

export interface ControlPlaneOptions {
  /** kube-apiserver flags after ours (a repeated list flag such as --disable-admission-plugins adds to the earlier one). */
  apiServerArgs?: string[];
  /** Where the data, certificates and logs go; a new temporary folder by default, removed on stop. */
  dir?: string;
  /** How long to wait for /readyz; default 60 s (a cold start bootstraps RBAC and priority levels). */
  readyTimeoutMs?: number;
  /**
   * Keep kube-apiserver's ServiceAccount admission plugin on (default off: no controller creates the
   * default accounts). kube-apiserver refuses a plugin both enabled and disabled, so a caller that
   * enables it must say so here; it then creates the service accounts its pods name.
   */
  serviceAccountAdmission?: boolean;
}

export interface ControlPlane {
  /** https://127.0.0.1:<port> */
  server: string;
  /** The cluster CA, PEM: it signed the serving and client certificates. */
  caCert: string;
  /** A client certificate in system:masters (user "admin"). */
  admin: KeyPairPem;
  /** A kubeconfig for the admin user. */
  kubeconfigPath: string;
  kubeconfigYaml: string;
  binaries: Binaries;
  dir: string;
  /** A client certificate for any user and groups, signed by the cluster CA. */
  clientCertificate(user: string, groups?: string[]): Promise<KeyPairPem>;
  /** A kubeconfig for a user authenticated by a client certificate. */
  kubeconfigFor(user: string, groups?: string[]): Promise<string>;
  /** A kubeconfig that authenticates with a bearer token (a service account's, from the TokenRequest API). */
  kubeconfigWithToken(token: string): string;
  /** Stops kube-apiserver, then etcd, and removes the folder it made. */
  stop(): Promise<void>;
}

export async function startControlPlane(options: ControlPlaneOptions = {}): Promise<ControlPlane> {
  const binaries = findBinaries();
  if ('missing' in binaries) throw new Error(`the control plane's binaries are ${binaries.missing}`);
  const ownDir = options.dir === undefined;
  const dir = options.dir ?? (await mkdtemp(join(tmpdir(), 'admission-chain-control-plane-')));
  await mkdir(dir, { recursive: true });
  const children: ChildProcess[] = [];
  const stop = async () => {
    for (const child of children.reverse()) await terminate(child);
    if (ownDir) await rm(dir, { recursive: true, force: true });
  };
  try {
    const notBefore = new Date(Date.now() - 60_000);
    const validity = { notBefore, notAfter: new Date(notBefore.getTime() + 7 * 86_400_000) };
    const ca = await generateAuthority('admission-chain-control-plane-ca', validity);
    const serving = await issueServingCertificate({
      authority: ca,
      commonName: 'kube-apiserver',
      names: ['127.0.0.1', 'localhost', 'kubernetes', 'kubernetes.default', 'kubernetes.default.svc', '10.0.0.1'],
      validity,
    });
    const clientCertificate = (user: string, groups: string[] = []) => issueClientCertificate(ca, user, groups, validity);
    const admin = await clientCertificate('admin', ['system:masters']);
    const serviceAccountKey = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const files = {
      ca: join(dir, 'ca.crt'),
      servingCert: join(dir, 'apiserver.crt'),
      servingKey: join(dir, 'apiserver.key'),
      saPublic: join(dir, 'sa.pub'),
      saPrivate: join(dir, 'sa.key'),
    };
    await writeFile(files.ca, ca.cert);
    await writeFile(files.servingCert, serving.cert);
    await writeFile(files.servingKey, serving.key, { mode: 0o600 });
    await writeFile(files.saPublic, serviceAccountKey.publicKey.export({ type: 'spki', format: 'pem' }));
    await writeFile(files.saPrivate, serviceAccountKey.privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });

    const [etcdClientPort, etcdPeerPort, securePort] = await freePorts(3);
    const etcdUrl = `http://127.0.0.1:${etcdClientPort}`;
    children.push(
      startProcess(
        binaries.etcd,
        [
          `--data-dir=${join(dir, 'etcd')}`,
          `--listen-client-urls=${etcdUrl}`,
          `--advertise-client-urls=${etcdUrl}`,
          `--listen-peer-urls=http://127.0.0.1:${etcdPeerPort}`,
          `--initial-advertise-peer-urls=http://127.0.0.1:${etcdPeerPort}`,
          `--initial-cluster=default=http://127.0.0.1:${etcdPeerPort}`,
          '--unsafe-no-fsync',
          '--log-level=warn',
        ],
        join(dir, 'etcd.log'),
      ),
    );
    const server = `https://127.0.0.1:${securePort}`;
    children.push(
      startProcess(
        binaries.kubeApiserver,
        [
          `--etcd-servers=${etcdUrl}`,
          '--advertise-address=127.0.0.1',
          // The kubernetes Service's endpoints may not be loopback; nothing here routes through it.
          '--endpoint-reconciler-type=none',
          '--bind-address=127.0.0.1',
          `--secure-port=${securePort}`,
          `--tls-cert-file=${files.servingCert}`,
          `--tls-private-key-file=${files.servingKey}`,
          `--client-ca-file=${files.ca}`,
          `--service-account-key-file=${files.saPublic}`,
          `--service-account-signing-key-file=${files.saPrivate}`,
          '--service-account-issuer=https://kubernetes.default.svc',
          '--service-cluster-ip-range=10.0.0.0/24',
          '--authorization-mode=RBAC',
          '--allow-privileged=true',
          // No controller manager creates namespaces' default service accounts (as envtest does).
          ...(options.serviceAccountAdmission === true ? [] : ['--disable-admission-plugins=ServiceAccount']),
          ...(options.apiServerArgs ?? []),
        ],
        join(dir, 'kube-apiserver.log'),
      ),
    );
    await waitReady(server, ca.cert, admin, children, options.readyTimeoutMs ?? 60_000, dir);
    const kubeconfigFor = async (user: string, groups: string[] = []) =>
      kubeconfig(server, ca.cert, user, await clientCertificate(user, groups));
    const kubeconfigYaml = kubeconfig(server, ca.cert, 'admin', admin);
    const kubeconfigPath = join(dir, 'admin.kubeconfig');
    await writeFile(kubeconfigPath, kubeconfigYaml, { mode: 0o600 });
    const kubeconfigWithToken = (token: string) => kubeconfig(server, ca.cert, 'token', { token });
    return {
      server,
      caCert: ca.cert,
      admin,
      kubeconfigPath,
      kubeconfigYaml,
      binaries,
      dir,
      clientCertificate,
      kubeconfigFor,
      kubeconfigWithToken,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** A client certificate: the common name is the user, each organization a group (as kube-apiserver reads it). */
async function issueClientCertificate(
  ca: KeyPairPem,
  user: string,
  groups: string[],
  validity: { notBefore: Date; notAfter: Date },
): Promise<KeyPairPem> {
  const generated = await selfsigned.generate(
    [{ name: 'commonName', value: user }, ...groups.map((group) => ({ name: 'organizationName', value: group }))],
    {
      keyType: 'ec',
      algorithm: 'sha256',
      notBeforeDate: validity.notBefore,
      notAfterDate: validity.notAfter,
      ca: { key: ca.key, cert: ca.cert },
      extensions: [
        { name: 'basicConstraints', cA: false, critical: true },
        { name: 'keyUsage', digitalSignature: true, critical: true },
        { name: 'extKeyUsage', clientAuth: true },
      ],
    },
  );
  return { cert: generated.cert, key: generated.private };
}

function kubeconfig(server: string, caCert: string, user: string, credentials: KeyPairPem | { token: string }): string {
  const b64 = (text: string) => Buffer.from(text).toString('base64');
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: control-plane',
    '  cluster:',
    `    server: ${server}`,
    `    certificate-authority-data: ${b64(caCert)}`,
    'users:',
    `- name: ${JSON.stringify(user)}`,
    '  user:',
    ...('token' in credentials
      ? [`    token: ${credentials.token}`]
      : [`    client-certificate-data: ${b64(credentials.cert)}`, `    client-key-data: ${b64(credentials.key)}`]),
    'contexts:',
    '- name: control-plane',
    '  context:',
    '    cluster: control-plane',
    `    user: ${JSON.stringify(user)}`,
    'current-context: control-plane',
    '',
  ].join('\n');
}

function startProcess(binary: string, args: string[], logFile: string): ChildProcess {
  const log = createWriteStream(logFile);
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  child.once('error', (error) => log.write(`\nfailed to start ${binary}: ${error.message}\n`));
  return child;
}

async function terminate(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

async function waitReady(
  server: string,
  caCert: string,
  admin: KeyPairPem,
  children: ChildProcess[],
  timeoutMs: number,
  dir: string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer yet';
  while (Date.now() < deadline) {
    const exited = children.find((child) => child.exitCode !== null || child.signalCode !== null);
    if (exited !== undefined)
      throw new Error(
        `${basename(exited.spawnfile)} exited (${exited.exitCode ?? exited.signalCode}) before the API server was ready; the end of its log:\n${await logTail(dir, exited)}`,
      );
    last = await get(`${server}/readyz`, caCert, admin).catch((error: Error) => error.message);
    if (last === 'ok') return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(
    `kube-apiserver not ready within ${timeoutMs} ms (last answer: ${last.slice(0, 500)}); the end of its log:\n${await logTail(dir, children.at(-1)!)}`,
  );
}

async function logTail(dir: string, child: ChildProcess): Promise<string> {
  const text = await readFile(join(dir, `${basename(child.spawnfile)}.log`), 'utf8').catch((error: Error) => `(no log: ${error.message})`);
  return text.split('\n').slice(-30).join('\n');
}

function get(url: string, ca: string, client: KeyPairPem): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(url, { ca, cert: client.cert, key: client.key, timeout: 5_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve(res.statusCode === 200 ? 'ok' : `${res.statusCode}: ${Buffer.concat(chunks).toString('utf8')}`));
    });
    req.once('timeout', () => req.destroy(new Error('timed out')));
    req.once('error', reject);
    req.end();
  });
}

async function freePorts(count: number): Promise<number[]> {
  // Held open together so the same port is never handed out twice.
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<ReturnType<typeof createServer>>((resolve, reject) => {
          const probe = createServer();
          probe.once('error', reject);
          probe.listen(0, '127.0.0.1', () => resolve(probe));
        }),
    ),
  );
  const ports = servers.map((probe) => (probe.address() as { port: number }).port);
  await Promise.all(servers.map((probe) => new Promise((resolve) => probe.close(resolve))));
  return ports;
}
