// What `unregister` deletes: everything of its name without --owned-by-helm-release; with it, only
// configurations carrying that release's ownership annotations, which Helm sets on what it installs
// and `helm template | kubectl apply` never does — so the hook's Job, applied as an ordinary Job at
// install by such a tool, keeps the configurations the replicas are about to register.
import { describe, expect, it } from 'vitest';
import { ConfigurationKind, type LiveConfiguration, type WebhookConfigurationStore } from '../ports/webhook-configuration-store.ts';
import {
  helmReleaseNameAnnotation,
  helmReleaseNamespaceAnnotation,
  ownedByHelmRelease,
  parseHelmRelease,
  unregisterWebhooks,
} from './unregister.ts';

function memoryStore(annotations: Partial<Record<ConfigurationKind, Record<string, string>>>) {
  const live = new Map<ConfigurationKind, LiveConfiguration>(
    Object.entries(annotations).map(([kind, a]) => [kind as ConfigurationKind, { resourceVersion: '1', annotations: a, webhooks: [] }]),
  );
  const deleted: ConfigurationKind[] = [];
  const store: WebhookConfigurationStore = {
    read: async (kind) => live.get(kind),
    writeWebhooks: async () => 'conflict',
    delete: async (kind) => {
      deleted.push(kind);
      return live.delete(kind);
    },
  };
  return { store, deleted };
}

const release = { namespace: 'admission-chain', name: 'ac' };
const installedBy = (namespace: string, name: string) => ({
  [helmReleaseNamespaceAnnotation]: namespace,
  [helmReleaseNameAnnotation]: name,
});

describe('ownedByHelmRelease', () => {
  it.each([
    ['installed by that release', installedBy('admission-chain', 'ac'), true],
    ['applied by kubectl (no Helm annotations)', { 'kubectl.kubernetes.io/last-applied-configuration': '{}' }, false],
    ['another release of that name', installedBy('other', 'ac'), false],
    ['another release in that namespace', installedBy('admission-chain', 'other'), false],
  ])('%s', (_label, annotations, expected) => {
    expect(ownedByHelmRelease(annotations, release)).toBe(expected);
  });
});

describe('parseHelmRelease', () => {
  it('reads NAMESPACE/NAME and refuses anything else', () => {
    expect(parseHelmRelease('admission-chain/ac')).toEqual(release);
    for (const bad of ['ac', 'a/b/c', '/ac', 'admission-chain/'])
      expect(() => parseHelmRelease(bad)).toThrow(`"${bad}" is not NAMESPACE/NAME`);
  });
});

describe('unregisterWebhooks', () => {
  const both = (annotations: Record<string, string>) => ({
    [ConfigurationKind.Mutating]: annotations,
    [ConfigurationKind.Validating]: annotations,
  });

  it.each([
    [
      'without a release: deletes both, validating first',
      both({}),
      undefined,
      ['deleted', 'deleted'],
      [ConfigurationKind.Validating, ConfigurationKind.Mutating],
    ],
    [
      'the release’s own (helm uninstall)',
      both(installedBy('admission-chain', 'ac')),
      release,
      ['deleted', 'deleted'],
      [ConfigurationKind.Validating, ConfigurationKind.Mutating],
    ],
    ['rendered and applied by another tool (the Job run at install)', both({}), release, ['kept', 'kept'], []],
    ['another release’s', both(installedBy('admission-chain', 'other')), release, ['kept', 'kept'], []],
    ['none there', {}, release, ['not found', 'not found'], []],
  ])('%s', async (_label, annotations, ownedBy, outcomes, deletes) => {
    const { store, deleted } = memoryStore(annotations);
    const results = await unregisterWebhooks(store, 'ac', ownedBy);
    expect(results).toEqual([
      { kind: ConfigurationKind.Validating, outcome: outcomes[0] },
      { kind: ConfigurationKind.Mutating, outcome: outcomes[1] },
    ]);
    expect(deleted).toEqual(deletes);
  });
});
