// `admission-chain review` (both phases, as --dry-run=server runs them) on the RuntimeClass and
// StorageObjectInUseProtection AdmissionReview fixtures: the same decisions and messages the
// plugins' upstream-derived tests expect, reproduced through the CLI offline.
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.ts';

async function run(fixture: string, args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await main(['node', 'admission-chain', 'review', fixture, ...args], {
    stdin: Readable.from([]),
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
  });
  return { code, stdout, stderr };
}

async function review(fixture: string, args: string[]) {
  const { code, stdout, stderr } = await run(fixture, args);
  expect(stderr).toBe('');
  expect(code).toBe(0);
  return JSON.parse(stdout).response as { allowed: boolean; patch?: string; status?: { message: string } };
}

const patchOf = (patch: string | undefined) => (patch === undefined ? [] : JSON.parse(Buffer.from(patch, 'base64').toString()));

describe('review, RuntimeClass fixtures', () => {
  const args = ['--cluster-state', 'test/fixtures/runtimeclass/cluster-state.yaml', '--plugins', 'RuntimeClass'];
  it.each([
    ['pod-kata.json', true, undefined],
    ['pod-runc.json', true, undefined],
    [
      'pod-gvisor-conflict.json',
      false,
      'pods "sandboxed-elsewhere" is forbidden: conflict: runtimeClass.scheduling.nodeSelector[sandbox.gke.io/runtime] = gvisor; pod.spec.nodeSelector[sandbox.gke.io/runtime] = runc',
    ],
    [
      'pod-kata-overhead-mismatch.json',
      false,
      `pods "greedy" is forbidden: pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead`,
    ],
    [
      'pod-overhead-without-runtimeclass.json',
      false,
      'pods "sneaky" is forbidden: pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead',
    ],
    ['pod-unknown-runtimeclass.json', false, 'pods "lost" is forbidden: pod rejected: RuntimeClass "wasmtime" not found'],
  ])('%s', async (file, allowed, message) => {
    const response = await review(`test/fixtures/runtimeclass/${file}`, args);
    expect(response.allowed).toBe(allowed);
    if (message !== undefined) expect(response.status?.message).toBe(message);
  });

  it('patches overhead and scheduling for kata', async () => {
    const response = await review('test/fixtures/runtimeclass/pod-kata.json', args);
    expect(patchOf(response.patch)).toEqual(
      expect.arrayContaining([{ op: 'add', path: '/spec/overhead', value: { cpu: '250m', memory: '160Mi' } }]),
    );
  });
});

describe('review, StorageObjectInUseProtection fixtures', () => {
  const args = ['--cluster-state', 'examples/cluster-state.yaml', '--plugins', 'StorageObjectInUseProtection'];
  it.each([
    ['pv-create.json', [{ op: 'add', path: '/metadata/finalizers/1', value: 'kubernetes.io/pv-protection' }]],
    ['pvc-create-with-finalizers.json', []],
    ['pvc-create.json', [{ op: 'add', path: '/metadata/finalizers', value: ['kubernetes.io/pvc-protection'] }]],
    ['vac-create.json', [{ op: 'add', path: '/metadata/finalizers', value: ['kubernetes.io/vac-protection'] }]],
    ['pv-status-update.json', []],
    ['statefulset-create.json', []],
  ])('%s', async (file, expected) => {
    const response = await review(`test/fixtures/storageobjectinuseprotection/${file}`, args);
    expect(response.allowed).toBe(true);
    expect(patchOf(response.patch)).toEqual(expected);
  });
});

describe('review, StorageObjectInUseProtection and the VolumeAttributesClass gate', () => {
  const args = ['--cluster-state', 'examples/cluster-state.yaml', '--plugins', 'StorageObjectInUseProtection'];
  const vac = 'test/fixtures/storageobjectinuseprotection/vac-create.json';

  it('follows --feature-gates: off, a VolumeAttributesClass gets no finalizer; claims still do', async () => {
    const off = [...args, '--feature-gates', 'VolumeAttributesClass=false'];
    expect(patchOf((await review(vac, off)).patch)).toEqual([]);
    expect(patchOf((await review('test/fixtures/storageobjectinuseprotection/pvc-create.json', off)).patch)).toEqual([
      { op: 'add', path: '/metadata/finalizers', value: ['kubernetes.io/pvc-protection'] },
    ]);
    expect(patchOf((await review(vac, [...args, '--feature-gates', 'VolumeAttributesClass=true'])).patch)).toEqual([
      { op: 'add', path: '/metadata/finalizers', value: ['kubernetes.io/vac-protection'] },
    ]);
  });

  it('refuses a gate it does not know, as a usage error', async () => {
    const { code, stdout, stderr } = await run(vac, [...args, '--feature-gates', 'VolumeAttributesClas=false']);
    expect({ code, stdout }).toEqual({ code: 2, stdout: '' });
    expect(stderr).toContain('--feature-gates "VolumeAttributesClas=false": unrecognized feature gate "VolumeAttributesClas"');
  });
});
