// The docs' examples as the oracle sends them, checked without a server: every example manifest is
// sent, as the identity its kubectl line names, expecting what its comment claims.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../deploy/tools.ts';
import { docsExampleGroups, docsExamples, exampleCase } from './docs-examples.ts';

/** Every manifest under examples/ of a kind a user writes (not a values file, not the world the examples need). */
function exampleManifests(dir = 'examples'): string[] {
  return readdirSync(join(repoRoot, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return entry.name === 'values' ? [] : exampleManifests(path);
    const text = readFileSync(join(repoRoot, path), 'utf8');
    return /^kind: (Pod|PersistentVolumeClaim|ConfigMap)$/m.test(text) ? [path] : [];
  });
}

describe('the docs examples in the oracle', () => {
  it('sends every example manifest under examples/', () => {
    expect(docsExamples.map((e) => e.file).sort()).toEqual(exampleManifests().sort());
  });

  it('expects what each comment claims, as the identity its kubectl line names', () => {
    const denied = exampleCase('examples/configmap-owner-denied.yaml', 'OwnerReferencesPermissionEnforcement');
    expect(denied.upstreamExpects).toBe('denied');
    expect(denied.request).toMatchObject({ operation: 'create', resource: 'configmaps', namespace: 'admission-chain-demo' });
    expect(denied.request.as).toEqual({ name: 'demo-user', groups: [] });
    const pod = exampleCase('examples/pod.yaml', 'AlwaysPullImages');
    expect(pod.upstreamExpects).toBe('admitted');
    expect(pod.request.as).toBeUndefined();
    expect(docsExamples.map((e) => exampleCase(e.file, e.plugin).upstreamExpects)).toEqual(
      docsExamples.map((e) => (readFileSync(join(repoRoot, e.file), 'utf8').startsWith('# Denied') ? 'denied' : 'admitted')),
    );
    expect(() => exampleCase('examples/namespace.yaml', 'PodNodeSelector')).toThrow(/does not send a Namespace/);
  });

  it("configures the pair as the tenant-pinning values do, with the examples' namespaces and RBAC, and only the selected plugins' examples", () => {
    const [group] = docsExampleGroups(['PodNodeSelector', 'AlwaysPullImages']);
    expect(group?.plugins).toEqual(['AlwaysPullImages', 'PodNodeSelector']);
    expect(group?.cases.map((c) => c.id)).toEqual(
      docsExamples
        .filter(
          (e) =>
            e.plugin !== 'PodTolerationRestriction' &&
            e.plugin !== 'OwnerReferencesPermissionEnforcement' &&
            e.plugin !== 'StorageObjectInUseProtection',
        )
        .map((e) => `docs example ${e.file}`),
    );
    expect(group?.world.configuration.PodNodeSelector).toEqual({
      clusterDefaultNodeSelector: '',
      namespaceWhitelists: { 'team-a': 'pool=team-a' },
    });
    expect(
      group?.world.objects().map((o) => `${(o as { kind: string }).kind}/${(o as { metadata: { name: string } }).metadata.name}`),
    ).toEqual(['Namespace/admission-chain-demo', 'Role/demo-user', 'RoleBinding/demo-user', 'Namespace/team-a']);
    expect(docsExampleGroups(['ServiceAccount'])).toEqual([]);
  });
});
