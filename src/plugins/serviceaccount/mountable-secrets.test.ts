// Upstream limitSecretReferences / limitEphemeralContainerSecretReferences: the check order
// (volumes, init containers, containers, image pull secrets; env before envFrom within a
// container) decides which violation is reported, so each row puts two violations in play.
import { describe, expect, it } from 'vitest';
import type { Pod } from '../../api/core.ts';
import type { KubeObject } from '../../api/types.ts';
import type { ServiceAccount } from '../../ports/lookups.ts';
import { enforcesMountableSecrets, ephemeralContainerSecretReferenceViolation, secretReferenceViolation } from './mountable-secrets.ts';

const account: ServiceAccount = { metadata: { name: 'builder' }, secrets: [{ name: 'ok' }], imagePullSecrets: [{ name: 'pull-ok' }] };
const tail = 'is not allowed because service account builder does not reference that secret';
const env = (secret: string, name = 'E') => ({ name, valueFrom: { secretKeyRef: { name: secret, key: 'k' } } });
const envFrom = (secret: string) => ({ secretRef: { name: secret } });

describe('secretReferenceViolation', () => {
  it.each<{ case: string; spec: KubeObject; expected: string | undefined }>([
    {
      case: 'only listed secrets',
      spec: {
        volumes: [{ secret: { secretName: 'ok' } }],
        containers: [{ name: 'c', env: [env('ok')], envFrom: [envFrom('ok')] }],
        imagePullSecrets: [{ name: 'pull-ok' }],
      },
      expected: undefined,
    },
    {
      case: 'volumes before containers',
      spec: { volumes: [{ secret: { secretName: 'v' } }], containers: [{ name: 'c', env: [env('e')] }] },
      expected: `volume with secret.secretName="v" ${tail}`,
    },
    {
      case: 'init containers before containers',
      spec: { initContainers: [{ name: 'i', envFrom: [envFrom('i')] }], containers: [{ name: 'c', env: [env('c')] }] },
      expected: `init container i with envFrom referencing secret.secretName="i" ${tail}`,
    },
    {
      case: 'env before envFrom in one container',
      spec: { containers: [{ name: 'c', envFrom: [envFrom('from')], env: [env('var', 'PASSWORD')] }] },
      expected: `container c with envVar PASSWORD referencing secret.secretName="var" ${tail}`,
    },
    {
      case: 'containers before image pull secrets',
      spec: { imagePullSecrets: [{ name: 'p' }], containers: [{ name: 'c', envFrom: [envFrom('x')] }] },
      expected: `container c with envFrom referencing secret.secretName="x" ${tail}`,
    },
    {
      case: 'pull secrets checked against imagePullSecrets, by index',
      spec: { imagePullSecrets: [{ name: 'pull-ok' }, { name: 'ok' }] },
      expected: 'imagePullSecrets[1].name="ok" is not allowed because service account builder does not reference that imagePullSecret',
    },
    {
      case: 'a pull-secret name is not a mountable secret',
      spec: { volumes: [{ secret: { secretName: 'pull-ok' } }] },
      expected: `volume with secret.secretName="pull-ok" ${tail}`,
    },
    {
      case: 'projected secrets, CSI refs and configMaps are not checked (upstream)',
      spec: {
        volumes: [{ projected: { sources: [{ secret: { name: 'x' } }] } }, { csi: { driver: 'd', nodePublishSecretRef: { name: 'x' } } }],
        containers: [{ name: 'c', env: [{ name: 'A', valueFrom: { configMapKeyRef: { name: 'x', key: 'k' } } }] }],
      },
      expected: undefined,
    },
    {
      case: 'ephemeral containers are not checked on create (upstream)',
      spec: { ephemeralContainers: [{ name: 'e', env: [env('x')] }] },
      expected: undefined,
    },
    {
      case: 'a secret volume without a name is the name ""',
      spec: { volumes: [{ secret: {} }] },
      expected: `volume with secret.secretName="" ${tail}`,
    },
  ])('$case', ({ spec, expected }) => {
    expect(secretReferenceViolation(account, { spec } as Pod)).toBe(expected);
  });
});

describe('ephemeralContainerSecretReferenceViolation', () => {
  it.each<{ case: string; spec: KubeObject; expected: string | undefined }>([
    {
      case: 'listed secrets',
      spec: { ephemeralContainers: [{ name: 'e', env: [env('ok')], envFrom: [envFrom('ok')] }] },
      expected: undefined,
    },
    {
      case: 'env',
      spec: { ephemeralContainers: [{ name: 'e', env: [env('x', 'TOKEN')] }] },
      expected: `ephemeral container e with envVar TOKEN referencing secret.secretName="x" ${tail}`,
    },
    {
      case: 'envFrom',
      spec: { ephemeralContainers: [{ name: 'e', envFrom: [envFrom('x')] }] },
      expected: `ephemeral container e with envFrom referencing secret.secretName="x" ${tail}`,
    },
    {
      case: 'only ephemeral containers are looked at',
      spec: { volumes: [{ secret: { secretName: 'x' } }], containers: [{ name: 'c', env: [env('x')] }], imagePullSecrets: [{ name: 'x' }] },
      expected: undefined,
    },
  ])('$case', ({ spec, expected }) => {
    expect(ephemeralContainerSecretReferenceViolation(account, { spec } as Pod)).toBe(expected);
  });
});

describe('enforcesMountableSecrets', () => {
  it.each<{ annotation: string | undefined; global: boolean; expected: boolean }>([
    { annotation: undefined, global: false, expected: false },
    { annotation: undefined, global: true, expected: true },
    { annotation: 'false', global: true, expected: true },
    { annotation: 'true', global: false, expected: true },
    { annotation: 'nope', global: false, expected: false },
  ])('annotation $annotation, global $global → $expected', ({ annotation, global, expected }) => {
    const sa: ServiceAccount = {
      metadata: {
        name: 'x',
        ...(annotation === undefined ? {} : { annotations: { 'kubernetes.io/enforce-mountable-secrets': annotation } }),
      },
    };
    expect(enforcesMountableSecrets(sa, global)).toBe(expected);
  });
});
