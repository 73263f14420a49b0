// The cache-readiness wait of the cluster lookups, where no API server answers: the informers never
// list, so a wait ends false at its bound or its signal, and a closed cache is never synced. The
// synced side (a cache that has listed) needs a server and is exercised against a real control plane.
import { KubeConfig } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { type ClusterLookups, createClusterLookups } from './lookups.ts';

function unreachableKubeConfig(): KubeConfig {
  const kubeConfig = new KubeConfig();
  // Port 1 on loopback: every LIST is refused at once.
  kubeConfig.loadFromOptions({
    clusters: [{ name: 'c', server: 'https://127.0.0.1:1', skipTLSVerify: true }],
    users: [{ name: 'u', token: 't' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return kubeConfig;
}

describe('cluster lookups: waiting for a cache to sync', () => {
  let lookups: ClusterLookups | undefined;
  afterEach(async () => {
    await lookups?.close();
    lookups = undefined;
  });

  it('answers false when the bound passes before the first LIST', async () => {
    lookups = createClusterLookups({
      kubeConfig: unreachableKubeConfig(),
      resources: ['nodes'],
      backoff: { initialMs: 10_000, maxMs: 10_000 },
    });
    const started = performance.now();
    expect(await lookups.nodes.synced?.(50, new AbortController().signal)).toBe(false);
    expect(performance.now() - started).toBeGreaterThanOrEqual(45);
    expect(lookups.notReadyReasons()[0]).toMatch(/^nodes cache has not synced/);
  });

  it('answers false at once for an aborted signal, and after close', async () => {
    lookups = createClusterLookups({
      kubeConfig: unreachableKubeConfig(),
      resources: ['nodes'],
      backoff: { initialMs: 10_000, maxMs: 10_000 },
    });
    const aborted = new AbortController();
    aborted.abort(new Error('gone'));
    expect(await lookups.nodes.synced?.(60_000, aborted.signal)).toBe(false);
    const waiting = lookups.nodes.synced?.(60_000, new AbortController().signal);
    await lookups.close();
    expect(await waiting).toBe(false);
  });

  it('refuses to wait for a cache no enabled plugin declared', async () => {
    lookups = createClusterLookups({ kubeConfig: unreachableKubeConfig(), resources: ['nodes'] });
    await expect(lookups.namespaces.synced!(10, new AbortController().signal)).rejects.toThrow(
      'the namespaces lookup is not enabled: no enabled plugin declared it',
    );
    expect(() => lookups!.namespaces.cached('', 'x')).toThrow('the namespaces lookup is not enabled');
  });
});
