// pkg/api/pod VisitPodSecretNames, which decides "a mirror pod may not reference secrets".
import { describe, expect, it } from 'vitest';
import type { Pod } from '../../api/core.ts';
import type { KubeObject } from '../../api/types.ts';
import { visitPodSecretNames } from './pod-secret-names.ts';

function namesIn(spec: KubeObject): string[] {
  const names: string[] = [];
  visitPodSecretNames({ spec } as Pod, (name) => {
    names.push(name);
    return true;
  });
  return names;
}

describe('visitPodSecretNames', () => {
  it.each<{ source: string; volume: KubeObject }>([
    { source: 'azureFile', volume: { azureFile: { secretName: 's', shareName: 'x' } } },
    { source: 'cephfs', volume: { cephfs: { monitors: [], secretRef: { name: 's' } } } },
    { source: 'cinder', volume: { cinder: { volumeID: 'x', secretRef: { name: 's' } } } },
    { source: 'flexVolume', volume: { flexVolume: { driver: 'd', secretRef: { name: 's' } } } },
    { source: 'projected', volume: { projected: { sources: [{ configMap: { name: 'c' } }, { secret: { name: 's' } }] } } },
    { source: 'rbd', volume: { rbd: { monitors: [], image: 'i', secretRef: { name: 's' } } } },
    { source: 'secret', volume: { secret: { secretName: 's' } } },
    { source: 'scaleIO', volume: { scaleIO: { gateway: 'g', system: 's', secretRef: { name: 's' } } } },
    { source: 'iscsi', volume: { iscsi: { targetPortal: 't', iqn: 'i', lun: 0, secretRef: { name: 's' } } } },
    { source: 'storageos', volume: { storageos: { secretRef: { name: 's' } } } },
    { source: 'csi', volume: { csi: { driver: 'd', nodePublishSecretRef: { name: 's' } } } },
  ])('visits the $source volume source', ({ volume }) => {
    expect(namesIn({ volumes: [{ name: 'v', ...volume }] })).toEqual(['s']);
  });

  it('visits pull secrets, then init, regular and ephemeral containers (envFrom before env), then volumes', () => {
    const container = (prefix: string) => ({
      name: prefix,
      env: [{ name: 'E', valueFrom: { secretKeyRef: { name: `${prefix}-env` } } }],
      envFrom: [{ secretRef: { name: `${prefix}-from` } }],
    });
    const spec = {
      volumes: [{ name: 'v', secret: { secretName: 'vol' } }],
      ephemeralContainers: [container('eph')],
      containers: [container('app')],
      initContainers: [container('init')],
      imagePullSecrets: [{ name: 'pull' }],
    };
    expect(namesIn(spec)).toEqual(['pull', 'init-from', 'init-env', 'app-from', 'app-env', 'eph-from', 'eph-env', 'vol']);
  });

  it('skips empty names, configMaps and volumes without secret references', () => {
    const spec = {
      imagePullSecrets: [{ name: '' }, {}],
      containers: [
        {
          name: 'c',
          env: [
            { name: 'A', value: 'x' },
            { name: 'B', valueFrom: { configMapKeyRef: { name: 'cm' } } },
          ],
          envFrom: [{ configMapRef: { name: 'cm' } }],
        },
      ],
      volumes: [
        { name: 'a', secret: {} },
        { name: 'b', cephfs: { monitors: [] } },
        { name: 'c', configMap: { name: 'cm' } },
        { name: 'd', emptyDir: {} },
      ],
    };
    expect(namesIn(spec)).toEqual([]);
  });

  it('one source per volume, in upstream switch order: the first set source decides', () => {
    // cephfs comes before secret in upstream's switch; with no secretRef it visits nothing.
    expect(namesIn({ volumes: [{ name: 'v', cephfs: { monitors: [] }, secret: { secretName: 's' } }] })).toEqual([]);
    expect(
      namesIn({ volumes: [{ name: 'v', secret: { secretName: 's' }, csi: { driver: 'd', nodePublishSecretRef: { name: 'c' } } }] }),
    ).toEqual(['s']);
  });

  it('stops when the visitor says so', () => {
    const seen: string[] = [];
    const finished = visitPodSecretNames({ spec: { imagePullSecrets: [{ name: 'a' }, { name: 'b' }] } } as Pod, (name) => {
      seen.push(name);
      return false;
    });
    expect(finished).toBe(false);
    expect(seen).toEqual(['a']);
  });
});
