// The manifests under examples/ are what docs/deploy.md and test/e2e/run.sh apply with
// --dry-run=server; a schema error there would show up as a confusing failure on a real cluster.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import type { KubeObject } from './helm.ts';
import { validateKubernetesObject } from './kube-schema.ts';
import { repoRoot } from './tools.ts';

const examplesDir = join(repoRoot, 'examples');
// cluster-state.yaml is the local mode's input (owned by the server), not something to apply.
const yamlFiles = (dir: string) =>
  readdirSync(join(examplesDir, dir))
    .filter((f) => f.endsWith('.yaml') && f !== 'cluster-state.yaml')
    .sort()
    .map((f) => join(dir, f));
/** Each set of manifests, and the namespace its objects live in. */
const manifests: [string, string][] = [
  ...yamlFiles('').map((file): [string, string] => [file, 'admission-chain-demo']),
  ...yamlFiles('tenant-pinning').map((file): [string, string] => [file, 'team-a']),
];
const load = (file: string): KubeObject[] =>
  parseAllDocuments(readFileSync(join(examplesDir, file), 'utf8'))
    .map((d) => d.toJS() as KubeObject)
    .filter((o) => o !== null);

describe.each(manifests)('examples/%s', (file, namespace) => {
  it(`holds only objects that satisfy their Kubernetes schema, in ${namespace}`, () => {
    const objects = load(file);
    expect(objects.length).toBeGreaterThan(0);
    for (const object of objects) {
      validateKubernetesObject(object);
      if (object.kind === 'Namespace') expect(object.metadata.name).toBe(namespace);
      else expect(object.metadata.namespace).toBe(namespace);
    }
  });
});

describe('the tenant-pinning namespace', () => {
  const [namespace] = load('tenant-pinning/namespace.yaml') as [KubeObject];
  const annotation = (name: string) => namespace.metadata.annotations?.[`scheduler.alpha.kubernetes.io/${name}`];

  it('carries a node selector and toleration lists that are JSON, as the plugins read them', () => {
    expect(annotation('node-selector')).toBe('pool=team-a');
    const defaults = JSON.parse(annotation('defaultTolerations') ?? '') as unknown[];
    const whitelist = JSON.parse(annotation('tolerationsWhitelist') ?? '') as unknown[];
    expect(defaults).toEqual([{ key: 'pool', operator: 'Equal', value: 'team-a', effect: 'NoSchedule' }]);
    // The whitelist must allow the defaults and what kube-apiserver and the plugin add on their own.
    expect(whitelist).toEqual([
      ...defaults,
      { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' },
      { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
      { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
    ]);
  });

  it('is the namespace the tenant-pinning values whitelist', () => {
    const values = parse(readFileSync(join(examplesDir, 'values', 'tenant-pinning.yaml'), 'utf8')) as {
      plugins: { PodNodeSelector: { namespaceWhitelists: Record<string, string> } };
    };
    expect(values.plugins.PodNodeSelector.namespaceWhitelists[namespace.metadata.name]).toBe(annotation('node-selector'));
  });
});

describe('the ORPE example pair', () => {
  it('differs only in blockOwnerDeletion, so the verdicts differ for that reason alone', () => {
    const [denied] = load('configmap-owner-denied.yaml') as [KubeObject & { metadata: { ownerReferences: Record<string, unknown>[] } }];
    const [allowed] = load('configmap-owner-allowed.yaml') as [KubeObject & { metadata: { ownerReferences: Record<string, unknown>[] } }];
    expect(denied.metadata.ownerReferences[0]?.blockOwnerDeletion).toBe(true);
    const { blockOwnerDeletion: _dropped, ...deniedRef } = denied.metadata.ownerReferences[0] ?? {};
    expect(allowed.metadata.ownerReferences).toEqual([deniedRef]);
    expect({ ...allowed, metadata: { ...allowed.metadata, ownerReferences: [] } }).toEqual({
      ...denied,
      metadata: { ...denied.metadata, ownerReferences: [] },
    });
  });

  it('the demo user may create ConfigMaps but has no rule on deployments/finalizers', () => {
    const role = load('demo-user-rbac.yaml').find((o) => o.kind === 'Role') as KubeObject & {
      rules: { apiGroups: string[]; resources: string[]; verbs: string[] }[];
    };
    expect(role.rules.some((r) => r.resources.includes('configmaps') && r.verbs.includes('create'))).toBe(true);
    expect(role.rules.some((r) => r.resources.some((res) => res.includes('finalizers') || res === '*') || r.verbs.includes('*'))).toBe(
      false,
    );
  });
});
