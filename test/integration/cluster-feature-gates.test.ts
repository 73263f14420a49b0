// The cluster's feature gates from its /version, through the real @kubernetes/client-node against
// the stand-in API server: each release's defaults, --feature-gates over them, readiness until the
// version is read, a re-read after an upgrade, and StorageObjectInUseProtection under `serve`
// protecting VolumeAttributesClasses only where the cluster's gate is on.
import { readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type ClusterFeatureGates,
  type ClusterFeatureGatesOptions,
  createClusterFeatureGates,
} from '../../src/adapters/cluster/feature-gates.ts';
import { Feature } from '../../src/api/feature-gates.ts';
import { type StandInApiServer, startStandInApiServer } from '../apiserver/index.ts';
import { serveVersion, versionRoute } from '../apiserver/version-route.ts';
import { get, post } from '../support/https-client.ts';
import { type ServedAgainst, serveAgainst } from '../support/serve-against.ts';

let api: StandInApiServer | undefined;
let gates: ClusterFeatureGates | undefined;
let served: ServedAgainst | undefined;
afterEach(async () => {
  await gates?.close();
  await served?.stop();
  await api?.close();
  gates = undefined;
  served = undefined;
  api = undefined;
});

async function standIn(): Promise<StandInApiServer> {
  api = await startStandInApiServer();
  return api;
}

function newGates(stand: StandInApiServer, options: Partial<ClusterFeatureGatesOptions> = {}): ClusterFeatureGates {
  gates = createClusterFeatureGates({ kubeConfig: stand.kubeConfig, retryMs: 20, refreshMs: 60_000, ...options });
  return gates;
}

describe('feature gates from the cluster version', () => {
  it.each([
    { gitVersion: 'v1.30.14', enabled: false },
    { gitVersion: 'v1.31.4-eks-2d5f260', enabled: false },
    { gitVersion: 'v1.33.2-gke.1111000', enabled: false },
    { gitVersion: 'v1.34.0', enabled: true },
    { gitVersion: 'v1.36.1-eks-1', enabled: true },
  ])('VolumeAttributesClass on $gitVersion: $enabled', async ({ gitVersion, enabled }) => {
    const stand = await standIn();
    serveVersion(stand, gitVersion);
    const featureGates = newGates(stand);
    await featureGates.load();
    expect(featureGates.notReadyReasons()).toEqual([]);
    expect(featureGates.enabled(Feature.VolumeAttributesClass)).toBe(enabled);
  });

  it("follows the emulation version, as kube-apiserver's defaults do", async () => {
    const stand = await standIn();
    serveVersion(stand, 'v1.34.2', { major: '1', minor: '33' });
    const featureGates = newGates(stand);
    await featureGates.load();
    expect(featureGates.enabled(Feature.VolumeAttributesClass)).toBe(false);
  });

  it('lets --feature-gates win over the version', async () => {
    const stand = await standIn();
    serveVersion(stand, 'v1.33.2');
    const featureGates = newGates(stand, { overrides: { VolumeAttributesClass: true } });
    await featureGates.load();
    expect(featureGates.enabled(Feature.VolumeAttributesClass)).toBe(true);
  });

  it('cannot answer, and says why, until /version has answered; then it can', async () => {
    const stand = await standIn();
    serveVersion(stand, 'v1.34.0');
    stand.inject(
      versionRoute,
      { kind: 'server-error', code: 503, message: 'the server is currently unable to handle the request' },
      { times: 2 },
    );
    const featureGates = newGates(stand);
    const loading = featureGates.load();
    expect(() => featureGates.enabled(Feature.VolumeAttributesClass)).toThrow(
      /^cannot tell whether feature gate VolumeAttributesClass is on: the cluster version has not been read yet/,
    );
    await expect
      .poll(() => featureGates.notReadyReasons())
      .toEqual(['the cluster version has not been read (last error: the server is currently unable to handle the request)']);
    await loading;
    expect(featureGates.notReadyReasons()).toEqual([]);
    expect(featureGates.enabled(Feature.VolumeAttributesClass)).toBe(true);
    expect(stand.calls.count(versionRoute)).toBe(3);
  });

  it('re-reads the version, so an upgrade turns the gate on without a restart, and keeps the last one when a re-read fails', async () => {
    const stand = await standIn();
    const version = serveVersion(stand, 'v1.33.2');
    const featureGates = newGates(stand, { refreshMs: 30 });
    await featureGates.load();
    expect(featureGates.enabled(Feature.VolumeAttributesClass)).toBe(false);
    stand.inject(versionRoute, { kind: 'server-error' }, { times: 1 });
    await expect.poll(() => stand.calls.count(versionRoute)).toBeGreaterThanOrEqual(2);
    expect(featureGates.enabled(Feature.VolumeAttributesClass)).toBe(false);
    version.set('v1.34.1');
    await expect.poll(() => featureGates.enabled(Feature.VolumeAttributesClass)).toBe(true);
  });
});

describe('serve: StorageObjectInUseProtection on the cluster backend', () => {
  async function vacReview(): Promise<string> {
    return readFile('test/fixtures/storageobjectinuseprotection/vac-create.json', 'utf8');
  }

  async function mutatePatch(server: ServedAgainst): Promise<unknown> {
    const res = await post(`https://127.0.0.1:${server.server.port}/mutate`, await vacReview(), { ca: server.certs.caCert });
    const response = res.json().response as { allowed: boolean; patch?: string };
    expect(response.allowed).toBe(true);
    return response.patch === undefined ? undefined : JSON.parse(Buffer.from(response.patch, 'base64').toString());
  }

  it.each([
    { gitVersion: 'v1.33.5', patch: undefined },
    { gitVersion: 'v1.34.0', patch: [{ op: 'add', path: '/metadata/finalizers', value: ['kubernetes.io/vac-protection'] }] },
  ])('a VolumeAttributesClass created on $gitVersion', async ({ gitVersion, patch }) => {
    const stand = await standIn();
    serveVersion(stand, gitVersion);
    served = await serveAgainst(stand, { plugins: ['StorageObjectInUseProtection'], logLevel: 'info' });
    await served.ready(5000);
    expect(await mutatePatch(served)).toEqual(patch);
    const read = served.log.lines().find((line) => line.msg === 'cluster version read: feature gates follow it');
    expect(read).toMatchObject({
      version: gitVersion.slice(1, 5),
      featureGates: { VolumeAttributesClass: `${patch !== undefined} (default)` },
    });
  });

  it('is not ready until the version is read', async () => {
    const stand = await standIn();
    serveVersion(stand, 'v1.34.0');
    const lift = stand.inject(versionRoute, { kind: 'server-error' });
    served = await serveAgainst(stand, { plugins: ['StorageObjectInUseProtection'] });
    await expect
      .poll(async () => (await get(`http://127.0.0.1:${served!.server.metricsPort}/readyz`)).text, { timeout: 5000 })
      .toContain('the cluster version has not been read');
    lift();
    await served.ready(10_000);
  });

  it('with --feature-gates naming every gate, never reads /version', async () => {
    const stand = await standIn();
    serveVersion(stand, 'v1.33.5');
    served = await serveAgainst(stand, {
      plugins: ['StorageObjectInUseProtection'],
      featureGates: ['VolumeAttributesClass=true', 'PodTopologyLabelsAdmission=false'],
    });
    await served.ready(5000);
    expect(await mutatePatch(served)).toEqual([{ op: 'add', path: '/metadata/finalizers', value: ['kubernetes.io/vac-protection'] }]);
    expect(stand.calls.count(versionRoute)).toBe(0);
  });
});
