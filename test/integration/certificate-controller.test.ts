// The certificate controller against the stand-in API server, through a real kubeconfig and the real
// client-node: several replicas starting on the chart's empty Secret agree on one CA (one write wins,
// the rest follow it), each puts the same pair on disk, a renewal by one is adopted by the others,
// and a Secret edited out from under them is repaired.
import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startStandInApiServer, type ResourceType, type StandInApiServer } from '../apiserver/index.ts';
import { clusterCertificateSecret } from '../../src/adapters/cluster/certificate-secret.ts';
import { createKubeRequests, type KubeRequests } from '../../src/adapters/cluster/kube.ts';
import { silentLogger } from '../../src/ports/logger.ts';
import { CertificateController } from '../../src/certificates/controller.ts';
import type { CertificatePolicy } from '../../src/certificates/policy.ts';

const secrets: ResourceType = { group: '', version: 'v1', resource: 'secrets', kind: 'Secret', namespaced: true };
const day = 86_400_000;
const policy: CertificatePolicy = {
  commonName: 'ac.admission-chain.svc',
  names: ['ac.admission-chain.svc', 'ac', 'ac.admission-chain'],
  durationMs: 90 * day,
  renewBeforeMs: 30 * day,
  caDurationMs: 3650 * day,
};

let api: StandInApiServer;
let scratch: string;
const requests: KubeRequests[] = [];
beforeEach(async () => {
  api = await startStandInApiServer({ writableResources: [secrets] });
  api.store.put(secrets, { metadata: { name: 'ac-tls', namespace: 'admission-chain' }, type: 'Opaque' });
  scratch = await mkdtemp(join(tmpdir(), 'admission-chain-certificates-'));
});
afterEach(async () => {
  for (const r of requests.splice(0)) await r.close();
  await api.close();
  await rm(scratch, { recursive: true, force: true });
});

/** One replica: its own client (from the kubeconfig text, as a pod reads its own), clock and files. */
function replica(name: string, clock: { now: () => number }) {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromString(api.kubeconfigYaml);
  const kube = createKubeRequests(kubeConfig);
  requests.push(kube);
  const files = { certFile: join(scratch, `${name}.crt`), keyFile: join(scratch, `${name}.key`) };
  const controller = new CertificateController({
    store: clusterCertificateSecret(kubeConfig, kube, { namespace: 'admission-chain', name: 'ac-tls' }, 5_000),
    policy,
    files,
    clock,
    logger: silentLogger,
  });
  return { controller, files };
}

const storedData = () => (api.store.get(secrets, 'admission-chain', 'ac-tls') as { data?: Record<string, string> }).data ?? {};
const decoded = (key: string) => Buffer.from(storedData()[key] ?? '', 'base64').toString('utf8');

describe('CertificateController', () => {
  it('three replicas starting at once on the empty Secret: one writes, all serve the same certificate, which its CA signed', async () => {
    const now = Date.now();
    const replicas = ['a', 'b', 'c'].map((name) => replica(name, { now: () => now }));
    const passes = await Promise.all(replicas.map((r) => r.controller.reconcile()));
    expect(passes.filter((p) => p.wroteSecret)).toHaveLength(1);
    expect(new Set(passes.map((p) => p.caBundle)).size).toBe(1);
    expect(passes[0]?.caBundle).toBe(decoded('ca.crt'));
    for (const r of replicas) {
      expect(await readFile(r.files.certFile, 'utf8')).toBe(decoded('tls.crt'));
      expect(await readFile(r.files.keyFile, 'utf8')).toBe(decoded('tls.key'));
    }
    const serving = new X509Certificate(decoded('tls.crt'));
    expect(serving.checkIssued(new X509Certificate(decoded('ca.crt')))).toBe(true);
    // The losers read the Secret again after their 409 instead of overwriting the winner.
    expect(api.calls.count('patch secrets')).toBeGreaterThanOrEqual(1);
    expect(api.calls.count('patch secrets')).toBeLessThanOrEqual(3);

    // A second pass changes nothing anywhere.
    const patches = api.calls.count('patch secrets');
    const again = await Promise.all(replicas.map((r) => r.controller.reconcile()));
    expect(again.map((p) => [p.wroteSecret, p.wroteFiles])).toEqual([[false, false], [false, false], [false, false]]);
    expect(api.calls.count('patch secrets')).toBe(patches);
  });

  it('renews the serving certificate inside its window, once, and the other replica adopts the renewal', async () => {
    let now = Date.now();
    const clock = { now: () => now };
    const [a, b] = [replica('a', clock), replica('b', clock)];
    await a.controller.reconcile();
    await b.controller.reconcile();
    const first = decoded('tls.crt');
    const ca = decoded('ca.crt');

    now += 61 * day;
    const renewal = await a.controller.reconcile();
    expect(renewal).toMatchObject({ wroteSecret: true, wroteFiles: true });
    expect(decoded('tls.crt')).not.toBe(first);
    expect(decoded('ca.crt')).toBe(ca);
    const follow = await b.controller.reconcile();
    expect(follow).toMatchObject({ wroteSecret: false, wroteFiles: true });
    expect(await readFile(b.files.certFile, 'utf8')).toBe(decoded('tls.crt'));
    expect(Date.parse(new X509Certificate(decoded('tls.crt')).validTo)).toBe(Math.floor((now + policy.durationMs) / 1000) * 1000);
  });

  it('repairs a Secret someone emptied, and reports an API error it cannot get past', async () => {
    const { controller } = replica('a', Date);
    await controller.reconcile();
    api.store.put(secrets, { metadata: { name: 'ac-tls', namespace: 'admission-chain' }, type: 'Opaque', data: { 'ca.crt': Buffer.from('junk').toString('base64') } });
    expect((await controller.reconcile()).wroteSecret).toBe(true);
    expect(new X509Certificate(decoded('tls.crt')).checkIssued(new X509Certificate(decoded('ca.crt')))).toBe(true);

    api.inject('get secrets', { kind: 'status', code: 403, message: 'secrets "ac-tls" is forbidden: User "system:serviceaccount:admission-chain:ac" cannot get resource "secrets"' });
    await expect(controller.reconcile()).rejects.toThrow('secrets "ac-tls" is forbidden');
  });
});
