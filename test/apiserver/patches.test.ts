// JSON merge patch and JSON patch, as the stand-in applies them.
import { describe, expect, it } from 'vitest';
import { applyJsonPatch, applyMergePatch } from './patches.ts';

const owner = (extra: Record<string, unknown> = {}) => ({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'u1', ...extra });

describe('JSON merge patch (RFC 7386) and JSON patch', () => {
  it('a merge patch replaces lists whole and deletes with null', () => {
    expect(
      applyMergePatch(
        { metadata: { ownerReferences: [owner(), owner({ uid: 'u2' })], labels: { a: '1' } } },
        { metadata: { ownerReferences: [owner({ blockOwnerDeletion: true })], labels: null } },
      ),
    ).toEqual({
      metadata: { ownerReferences: [owner({ blockOwnerDeletion: true })] },
    });
  });

  it('a JSON patch is applied in order and does not touch its input', () => {
    const original = { spec: { containers: [{ name: 'a' }] } };
    expect(applyJsonPatch(original, [{ op: 'add', path: '/spec/containers/0/imagePullPolicy', value: 'Always' }])).toEqual({
      spec: { containers: [{ name: 'a', imagePullPolicy: 'Always' }] },
    });
    expect(original).toEqual({ spec: { containers: [{ name: 'a' }] } });
  });
});
