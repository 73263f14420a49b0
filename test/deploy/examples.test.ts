// The manifests under examples/ are what docs/deploy.md and test/e2e/run.sh apply with
// --dry-run=server; a schema error there would show up as a confusing failure on a real cluster.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from './helm.ts';
import { validateKubernetesObject } from './kube-schema.ts';
import { repoRoot } from './tools.ts';

const examplesDir = join(repoRoot, 'examples');
// cluster-state.yaml is the local mode's input (owned by the server), not something to apply.
const manifests = readdirSync(examplesDir).filter((f) => f.endsWith('.yaml') && f !== 'cluster-state.yaml').sort();
const load = (file: string): KubeObject[] =>
  parseAllDocuments(readFileSync(join(examplesDir, file), 'utf8')).map((d) => d.toJS() as KubeObject).filter((o) => o !== null);

describe.each(manifests)('examples/%s', (file) => {
  it('holds only objects that satisfy their Kubernetes schema, in the demo namespace', () => {
    const objects = load(file);
    expect(objects.length).toBeGreaterThan(0);
    for (const object of objects) {
      validateKubernetesObject(object);
      if (object.kind !== 'Namespace') expect(object.metadata.namespace).toBe('admission-chain-demo');
    }
  });
});

describe('the ORPE example pair', () => {
  it('differs only in blockOwnerDeletion, so the verdicts differ for that reason alone', () => {
    const [denied] = load('configmap-owner-denied.yaml') as [KubeObject & { metadata: { ownerReferences: Record<string, unknown>[] } }];
    const [allowed] = load('configmap-owner-allowed.yaml') as [KubeObject & { metadata: { ownerReferences: Record<string, unknown>[] } }];
    expect(denied.metadata.ownerReferences[0]?.blockOwnerDeletion).toBe(true);
    const { blockOwnerDeletion: _dropped, ...deniedRef } = denied.metadata.ownerReferences[0] ?? {};
    expect(allowed.metadata.ownerReferences).toEqual([deniedRef]);
    expect({ ...allowed, metadata: { ...allowed.metadata, ownerReferences: [] } }).toEqual({ ...denied, metadata: { ...denied.metadata, ownerReferences: [] } });
  });

  it('the demo user may create ConfigMaps but has no rule on deployments/finalizers', () => {
    const role = load('demo-user-rbac.yaml').find((o) => o.kind === 'Role') as KubeObject & { rules: { apiGroups: string[]; resources: string[]; verbs: string[] }[] };
    expect(role.rules.some((r) => r.resources.includes('configmaps') && r.verbs.includes('create'))).toBe(true);
    expect(role.rules.some((r) => r.resources.some((res) => res.includes('finalizers') || res === '*') || r.verbs.includes('*'))).toBe(false);
  });
});
