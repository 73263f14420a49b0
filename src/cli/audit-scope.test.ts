import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../api/types.ts';
import { asCreated, clusterResources, isAudited, listedResourcesMapper } from './audit-scope.ts';

const owned = (apiVersion: string, kind: string, owner: { apiVersion: string; kind: string }, controller = true): KubeObject => ({
  apiVersion,
  kind,
  metadata: { name: 'x', ownerReferences: [{ ...owner, name: 'o', uid: 'u', controller }] },
});
const replicaSet = { apiVersion: 'apps/v1', kind: 'ReplicaSet' };

describe('isAudited', () => {
  it.each<[string, KubeObject, boolean]>([
    ['a bare pod', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' } }, true],
    ['a Service', { apiVersion: 'v1', kind: 'Service', metadata: { name: 's' } }, true],
    ['a CronJob', { apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'c' } }, true],
    ['a pod its ReplicaSet made', owned('v1', 'Pod', replicaSet), false],
    ['a pod its Job made', owned('v1', 'Pod', { apiVersion: 'batch/v1', kind: 'Job' }), false],
    ['a pod an operator made', owned('v1', 'Pod', { apiVersion: 'example.com/v1', kind: 'Pool' }), true],
    ['a pod a ReplicaSet owns but does not control', owned('v1', 'Pod', replicaSet, false), true],
    ['a ReplicaSet its Deployment made', owned('apps/v1', 'ReplicaSet', { apiVersion: 'apps/v1', kind: 'Deployment' }), false],
    ['a ReplicaSet without an owner', { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'r' } }, true],
    ['a Job its CronJob made', owned('batch/v1', 'Job', { apiVersion: 'batch/v1', kind: 'CronJob' }), false],
    ['a ConfigMap with an owner', owned('v1', 'ConfigMap', replicaSet, false), true],
    ['a ConfigMap without one', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } }, false],
    ['a Namespace', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'n' } }, false],
  ])('%s: %s', (_, object, audited) => {
    expect(isAudited(object)).toBe(audited);
  });
});

describe('asCreated', () => {
  it('drops the status and what storing the object set, and keeps the uid and the rest', () => {
    const stored = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'p',
        namespace: 'a',
        uid: 'u-1',
        labels: { app: 'web' },
        resourceVersion: '42',
        generation: 1,
        creationTimestamp: '2026-01-01T00:00:00Z',
        managedFields: [{ manager: 'kubectl' }],
      },
      spec: { nodeName: 'n1' },
      status: { phase: 'Running' },
    };
    expect(asCreated(stored)).toEqual({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', namespace: 'a', uid: 'u-1', labels: { app: 'web' } },
      spec: { nodeName: 'n1' },
    });
    expect(stored.metadata.resourceVersion).toBe('42');
  });
});

describe('listedResourcesMapper', () => {
  const mapper = listedResourcesMapper(clusterResources);

  it('maps each listed kind to its resource, namespaced', async () => {
    expect(await mapper.mappingsFor({ group: 'apps', kind: 'Deployment' }, ['v1'])).toEqual([
      {
        resource: { group: 'apps', version: 'v1', resource: 'deployments' },
        groupVersionKind: { group: 'apps', version: 'v1', kind: 'Deployment' },
        scope: 'namespace',
      },
    ]);
  });

  it('knows no other kind or version', async () => {
    await expect(mapper.mappingsFor({ group: 'example.com', kind: 'Widget' }, ['v1'])).rejects.toThrow(
      'no matches for kind "Widget" in group "example.com"',
    );
    await expect(mapper.mappingsFor({ group: 'apps', kind: 'Deployment' }, ['v1beta1'])).rejects.toThrow(/no matches/);
  });
});
