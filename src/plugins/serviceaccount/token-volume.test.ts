// upstream mountServiceAccountToken + TokenVolumeSource on v1 JSON pods.
import { describe, expect, it } from 'vitest';
import type { Pod } from '../../api/core.ts';
import { mountServiceAccountToken, tokenVolumeSource } from './token-volume.ts';

const mountPath = '/var/run/secrets/kubernetes.io/serviceaccount';

function namer() {
  const bases: string[] = [];
  return {
    bases,
    generate: (base: string) => {
      bases.push(base);
      return `${base}abcde`;
    },
  };
}

describe('tokenVolumeSource', () => {
  it("is upstream's layout with every v1 default already set", () => {
    expect(tokenVolumeSource()).toEqual({
      defaultMode: 420,
      sources: [
        { serviceAccountToken: { path: 'token', expirationSeconds: 3607 } },
        { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
        { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
      ],
    });
  });

  it('hands out a fresh object each time', () => {
    expect(tokenVolumeSource()).not.toBe(tokenVolumeSource());
  });
});

describe('mountServiceAccountToken', () => {
  it('asks for a name once, even when no container needs the volume', () => {
    const { bases, generate } = namer();
    const pod: Pod = { spec: {} };
    mountServiceAccountToken(pod, generate);
    expect(bases).toEqual(['kube-api-access-']);
    expect(pod.spec).toEqual({});
  });

  it('mounts only containers without something at the token path; adds the volume once', () => {
    const { generate } = namer();
    const pod: Pod = {
      spec: {
        initContainers: [{ name: 'i', volumeMounts: [{ name: 'mine', mountPath }] }],
        containers: [{ name: 'a' }, { name: 'b', volumeMounts: [{ name: 'x', mountPath: '/x' }] }],
      },
    };
    mountServiceAccountToken(pod, generate);
    const mount = { name: 'kube-api-access-abcde', readOnly: true, mountPath };
    expect(pod.spec?.initContainers?.[0]?.volumeMounts).toEqual([{ name: 'mine', mountPath }]);
    expect(pod.spec?.containers?.[0]?.volumeMounts).toEqual([mount]);
    expect(pod.spec?.containers?.[1]?.volumeMounts).toEqual([{ name: 'x', mountPath: '/x' }, mount]);
    expect(pod.spec?.volumes).toEqual([{ name: 'kube-api-access-abcde', projected: tokenVolumeSource() }]);
  });

  it('reuses the first kube-api-access- volume and adds none', () => {
    const { bases, generate } = namer();
    const pod: Pod = {
      spec: {
        volumes: [{ name: 'kube-api-access' }, { name: 'kube-api-access-first' }, { name: 'kube-api-access-second' }],
        containers: [{ name: 'a' }],
      },
    };
    mountServiceAccountToken(pod, generate);
    expect(bases).toEqual([]);
    expect(pod.spec?.volumes).toHaveLength(3);
    expect(pod.spec?.containers?.[0]?.volumeMounts).toEqual([{ name: 'kube-api-access-first', readOnly: true, mountPath }]);
  });

  it('gives each container its own mount object', () => {
    const pod: Pod = { spec: { containers: [{ name: 'a' }, { name: 'b' }] } };
    mountServiceAccountToken(pod, namer().generate);
    expect(pod.spec?.containers?.[0]?.volumeMounts?.[0]).not.toBe(pod.spec?.containers?.[1]?.volumeMounts?.[0]);
  });
});
