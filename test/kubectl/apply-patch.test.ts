// The strategic merge patch kubectl apply sends, applied as the stand-in applies it.
import { describe, expect, it } from 'vitest';
import { applyStrategicMergePatch } from './apply-patch.ts';

const owner = (extra: Record<string, unknown> = {}) => ({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'u1', ...extra });

describe('strategic merge patch', () => {
  it.each([
    ['maps merge and null deletes', { metadata: { labels: { a: '1', b: '2' } } }, { metadata: { labels: { b: null, c: '3' } } }, { metadata: { labels: { a: '1', c: '3' } } }],
    [
      'ownerReferences merge by uid (kubectl apply adding blockOwnerDeletion)',
      { metadata: { ownerReferences: [owner(), { ...owner(), uid: 'u2', name: 'other' }] } },
      { metadata: { '$setElementOrder/ownerReferences': [{ uid: 'u1' }, { uid: 'u2' }], ownerReferences: [{ uid: 'u1', blockOwnerDeletion: true }] } },
      { metadata: { ownerReferences: [owner({ blockOwnerDeletion: true }), { ...owner(), uid: 'u2', name: 'other' }] } },
    ],
    [
      'containers merge by name; $patch: delete removes one; $setElementOrder orders',
      { spec: { containers: [{ name: 'a', image: 'a:1' }, { name: 'b', image: 'b:1' }] } },
      { spec: { '$setElementOrder/containers': [{ name: 'c' }, { name: 'a' }], containers: [{ name: 'b', $patch: 'delete' }, { name: 'c', image: 'c:1' }, { name: 'a', image: 'a:2' }] } },
      { spec: { containers: [{ name: 'c', image: 'c:1' }, { name: 'a', image: 'a:2' }] } },
    ],
    ['finalizers merge as a set; $deleteFromPrimitiveList removes', { metadata: { finalizers: ['x', 'y'] } }, { metadata: { finalizers: ['z', 'x'], '$deleteFromPrimitiveList/finalizers': ['y'] } }, { metadata: { finalizers: ['x', 'z'] } }],
    ['other lists are replaced', { spec: { args: ['a', 'b'] } }, { spec: { args: ['c'] } }, { spec: { args: ['c'] } }],
    ['$patch: replace replaces a map', { data: { a: '1', b: '2' } }, { data: { $patch: 'replace', c: '3' } }, { data: { c: '3' } }],
    ['$retainKeys prunes', { spec: { a: 1, b: 2, c: 3 } }, { spec: { $retainKeys: ['a', 'c'], c: 4 } }, { spec: { a: 1, c: 4 } }],
  ])('%s', (_name, original, patch, expected) => {
    expect(applyStrategicMergePatch(original, patch)).toEqual(expected);
  });
});
