// The certificate controller against a real kube-apiserver, through a kubeconfig and the real
// client-node: several replicas starting on the chart's empty Secret agree on one CA (one write wins,
// the rest follow it after kube-apiserver's 409), each puts the same pair on disk, a renewal by one is
// adopted by the others, a Secret edited out from under them is repaired, and RBAC's refusal is
// reported.
import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, KubeConfig, type V1Secret, Watch } from '@kubernetes/client-node';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { type ControlPlane, startControlPlane } from '../../control-plane/control-plane.ts';
import { createKubeRequests, type KubeRequests } from '../../src/adapters/cluster/client/kube.ts';
import { clusterCertificateSecret } from '../../src/adapters/cluster/registration/certificate-secret.ts';
import { CertificateController } from '../../src/certificates/controller.ts';
import type { CertificatePolicy } from '../../src/certificates/policy.ts';
import { silentLogger } from '../../src/ports/logger.ts';
import { describeWithControlPlane } from './real-cluster.ts';

const day = 86_400_000;
const policy: CertificatePolicy = {
  commonName: 'ac.admission-chain.svc',
  names: ['ac.admission-chain.svc', 'ac', 'ac.admission-chain'],
  durationMs: 90 * day,
  renewBeforeMs: 30 * day,
  caDurationMs: 3650 * day,
};

const namespace = 'admission-chain';
let controlPlane: ControlPlane;
let core: CoreV1Api;
let scratch: string;
let secret: V1Secret;
const requests: KubeRequests[] = [];
const closers: Array<() => void> = [];

/** One replica: its own client (from the kubeconfig text, as a pod reads its own), clock and files. */
function replica(name: string, clock: { now: () => number }, kubeconfigYaml = controlPlane.kubeconfigYaml) {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromString(kubeconfigYaml);
  const kube = createKubeRequests(kubeConfig);
  requests.push(kube);
  const files = { certFile: join(scratch, `${name}.crt`), keyFile: join(scratch, `${name}.key`) };
  const controller = new CertificateController({
    store: clusterCertificateSecret(kubeConfig, kube, { namespace, name: secret.metadata!.name! }, 5_000),
    policy,
    files,
    clock,
    logger: silentLogger,
  });
  return { controller, files };
}

const stored = async () => core.readNamespacedSecret({ namespace, name: secret.metadata!.name! });
const decoded = async (key: string) => Buffer.from((await stored()).data?.[key] ?? '', 'base64').toString('utf8');

/** Every change kube-apiserver makes to the Secret from now on, as its watch reports them. */
async function writesToSecret(): Promise<string[]> {
  const seen: string[] = [];
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromString(controlPlane.kubeconfigYaml);
  const watch = new Watch(kubeConfig);
  const started = await watch.watch(
    `/api/v1/namespaces/${namespace}/secrets`,
    { fieldSelector: `metadata.name=${secret.metadata!.name!}`, resourceVersion: secret.metadata!.resourceVersion! },
    (type: string) => seen.push(type),
    () => {},
  );
  closers.push(() => started.abort());
  return seen;
}

describeWithControlPlane('CertificateController against a real kube-apiserver', () => {
  let count = 0;
  beforeAll(async () => {
    controlPlane = await startControlPlane();
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(controlPlane.kubeconfigYaml);
    core = kubeConfig.makeApiClient(CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: namespace } } });
  }, 90_000);
  afterAll(async () => {
    await controlPlane?.stop();
  });
  // Each test starts on the chart's empty Secret of its own.
  beforeEach(async () => {
    secret = await core.createNamespacedSecret({ namespace, body: { metadata: { name: `ac-tls-${++count}` }, type: 'Opaque' } });
    scratch = await mkdtemp(join(tmpdir(), 'admission-chain-certificates-'));
  });
  afterEach(async () => {
    for (const close of closers.splice(0)) close();
    for (const r of requests.splice(0)) await r.close();
    await rm(scratch, { recursive: true, force: true });
  });

  it('three replicas starting at once on the empty Secret: one writes, all serve the same certificate, which its CA signed', async () => {
    const now = Date.now();
    const replicas = ['a', 'b', 'c'].map((name) => replica(name, { now: () => now }));
    const writes = await writesToSecret();
    const passes = await Promise.all(replicas.map((r) => r.controller.reconcile()));
    expect(passes.filter((p) => p.wroteSecret)).toHaveLength(1);
    expect(new Set(passes.map((p) => p.caBundle)).size).toBe(1);
    expect(passes[0]?.caBundle).toBe(await decoded('ca.crt'));
    for (const r of replicas) {
      expect(await readFile(r.files.certFile, 'utf8')).toBe(await decoded('tls.crt'));
      expect(await readFile(r.files.keyFile, 'utf8')).toBe(await decoded('tls.key'));
    }
    const serving = new X509Certificate(await decoded('tls.crt'));
    expect(serving.checkIssued(new X509Certificate(await decoded('ca.crt')))).toBe(true);
    // The losers read the Secret again after their 409 instead of overwriting the winner: the Secret
    // changed exactly once (the stand-in counted 1 to 3 PATCHes, the 409s among them; the real
    // server's watch counts the writes that took, which is the stronger claim).
    const { resourceVersion } = (await stored()).metadata!;
    await expect.poll(() => writes.length).toBe(1);
    expect(writes).toEqual(['MODIFIED']);

    // A second pass changes nothing anywhere.
    const again = await Promise.all(replicas.map((r) => r.controller.reconcile()));
    expect(again.map((p) => [p.wroteSecret, p.wroteFiles])).toEqual([
      [false, false],
      [false, false],
      [false, false],
    ]);
    expect((await stored()).metadata!.resourceVersion).toBe(resourceVersion);
  });

  it('renews the serving certificate inside its window, once, and the other replica adopts the renewal', async () => {
    let now = Date.now();
    const clock = { now: () => now };
    const [a, b] = [replica('a', clock), replica('b', clock)];
    await a.controller.reconcile();
    await b.controller.reconcile();
    const first = await decoded('tls.crt');
    const ca = await decoded('ca.crt');

    now += 61 * day;
    const renewal = await a.controller.reconcile();
    expect(renewal).toMatchObject({ wroteSecret: true, wroteFiles: true });
    expect(await decoded('tls.crt')).not.toBe(first);
    expect(await decoded('ca.crt')).toBe(ca);
    const follow = await b.controller.reconcile();
    expect(follow).toMatchObject({ wroteSecret: false, wroteFiles: true });
    expect(await readFile(b.files.certFile, 'utf8')).toBe(await decoded('tls.crt'));
    expect(Date.parse(new X509Certificate(await decoded('tls.crt')).validTo)).toBe(Math.floor((now + policy.durationMs) / 1000) * 1000);
  });

  it('repairs a Secret someone emptied, and reports an API error it cannot get past', async () => {
    const { controller } = replica('a', Date);
    await controller.reconcile();
    const name = secret.metadata!.name!;
    await core.replaceNamespacedSecret({
      namespace,
      name,
      body: { metadata: { name, namespace }, type: 'Opaque', data: { 'ca.crt': Buffer.from('junk').toString('base64') } },
    });
    expect((await controller.reconcile()).wroteSecret).toBe(true);
    expect(new X509Certificate(await decoded('tls.crt')).checkIssued(new X509Certificate(await decoded('ca.crt')))).toBe(true);

    // A replica whose identity RBAC gives nothing: kube-apiserver's own refusal.
    const forbidden = replica('forbidden', Date, await controlPlane.kubeconfigFor('system:serviceaccount:admission-chain:ac'));
    await expect(forbidden.controller.reconcile()).rejects.toThrow(
      `secrets "${name}" is forbidden: User "system:serviceaccount:admission-chain:ac" cannot get resource "secrets" in API group "" in the namespace "admission-chain"`,
    );
  });
});
