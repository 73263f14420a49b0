// The chart's exemptions: values, per plugin, rendered as a PluginExemptions ConfigMap that the pod
// mounts and `serve` reads with --plugin-exemptions-file; read back here with the server's own flag
// parser and file loader, through the paths the pod sees. Off by default; selectors add namespace
// reads to the ClusterRole; values the server would refuse are refused by the schema first.
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterAll, describe, expect, it } from 'vitest';
import { loadPluginExemptionsFlag } from '../../src/config/plugin-exemptions.ts';
import { addServeOptions, parseServeConfig, type RawServeOptions } from '../../src/config/serve-config.ts';
import { defaultEnabledPlugins, orderedPlugins } from '../../src/plugins/index.ts';
import { projectConfigMapMounts } from './config-map-mounts.ts';
import { chartDir, defaultRelease, type KubeObject, only, renderChart, runHelm } from './helm.ts';

const pluginNames = orderedPlugins.map((p) => p.name);
const fullname = `${defaultRelease}-admission-chain`;
const configMapName = `${fullname}-plugin-exemptions`;
const mountPath = '/etc/admission-chain/exemptions';
const scratch = mkdtempSync(join(tmpdir(), 'admission-chain-exemptions-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
let run = 0;

interface Pod {
  metadata: { annotations?: Record<string, string> };
  spec: {
    containers: Array<{ args: string[]; volumeMounts?: Array<{ name: string; mountPath: string; readOnly?: boolean }> }>;
    volumes?: Array<{ name: string; configMap?: { name: string } }>;
  };
}
type Deployment = KubeObject & { spec: { template: Pod } };
type ClusterRole = KubeObject & { rules: Array<{ resources: string[]; verbs: string[] }> };

/** Renders, parses the server's flags, projects the mounted ConfigMaps and loads the file as `serve` does. */
async function serverReads(values: Record<string, unknown>) {
  const objects = renderChart({ values });
  const pod = only<Deployment>(objects, 'Deployment').spec.template;
  const serve = addServeOptions(new Command('serve')).exitOverride().allowExcessArguments(false);
  serve.parse(pod.spec.containers[0]!.args, { from: 'user' });
  const config = parseServeConfig(serve.opts<RawServeOptions>(), orderedPlugins, defaultEnabledPlugins);
  const mounts = await projectConfigMapMounts(objects, join(scratch, String(run++)));
  const file = config.pluginExemptionsFile === undefined ? undefined : mounts.localPath(config.pluginExemptionsFile);
  if (file !== undefined) expect(file, 'the flag names a file inside a mounted ConfigMap').not.toBe(config.pluginExemptionsFile);
  const loaded = await loadPluginExemptionsFlag(file, config.plugins.enabled, pluginNames);
  expect(loaded.warnings).toEqual([]);
  return { objects, pod, config, rules: loaded.rules };
}

const readsNamespaces = (objects: KubeObject[]) =>
  only<ClusterRole>(objects, 'ClusterRole').rules.some((r) => r.resources.includes('namespaces'));

describe('chart: per-plugin exemptions', () => {
  it('off by default: no ConfigMap, no flag, no mount, no namespace reads', async () => {
    const { objects, pod, config, rules } = await serverReads({});
    expect(objects.some((o) => o.kind === 'ConfigMap' && o.metadata.name === configMapName)).toBe(false);
    expect(config.pluginExemptionsFile).toBeUndefined();
    expect(pod.spec.volumes?.some((v) => v.name === 'plugin-exemptions')).toBe(false);
    expect(pod.metadata.annotations?.['checksum/plugin-exemptions']).toBeUndefined();
    expect(rules.size).toBe(0);
    expect(readsNamespaces(objects)).toBe(false);
  });

  it('every rule arrives at the server as written, for the enabled plugins with rules', async () => {
    const { objects, pod, rules } = await serverReads({
      exemptions: {
        AlwaysPullImages: {
          // A namespace YAML 1.1 would read as a boolean, and label values it would read as numbers.
          namespaces: ['istio-system', 'no'],
          namespaceSelectors: [
            { matchLabels: { team: 'platform', tier: '1' } },
            {
              matchExpressions: [
                { key: 'env', operator: 'NotIn', values: ['prod', 'yes'] },
                { key: 'legacy', operator: 'DoesNotExist' },
              ],
            },
          ],
          users: ['ci-bot'],
          groups: ['platform-admins'],
          serviceAccounts: ['vendor-system/vendor-operator'],
        },
        OwnerReferencesPermissionEnforcement: { groups: ['system:serviceaccounts:vendor-system'] },
        // Not enabled: not written (the server would only warn about it).
        RuntimeClass: { users: ['someone'] },
        // Enabled but exempting nothing: not written (the server would refuse it).
        DenyServiceExternalIPs: { users: [] },
      },
    });
    expect([...rules.keys()]).toEqual(['AlwaysPullImages', 'OwnerReferencesPermissionEnforcement']);
    expect(rules.get('AlwaysPullImages')).toEqual({
      namespaces: ['istio-system', 'no'],
      namespaceSelectors: [
        { matchLabels: { team: 'platform', tier: '1' }, matchExpressions: [] },
        {
          matchLabels: {},
          matchExpressions: [
            { key: 'env', operator: 'NotIn', values: ['prod', 'yes'] },
            { key: 'legacy', operator: 'DoesNotExist', values: [] },
          ],
        },
      ],
      users: ['ci-bot'],
      groups: ['platform-admins'],
      serviceAccounts: ['vendor-system/vendor-operator'],
    });
    expect(rules.get('OwnerReferencesPermissionEnforcement')?.groups).toEqual(['system:serviceaccounts:vendor-system']);

    const configMap = only<KubeObject & { data: Record<string, string> }>(objects, 'ConfigMap', configMapName);
    expect(Object.keys(configMap.data)).toEqual(['plugin-exemptions.yaml']);
    expect(pod.spec.volumes).toContainEqual({ name: 'plugin-exemptions', configMap: { name: configMapName } });
    expect(pod.spec.containers[0]?.volumeMounts).toContainEqual({ name: 'plugin-exemptions', mountPath, readOnly: true });
    const checksum = createHash('sha256').update(configMap.data['plugin-exemptions.yaml']!.trimEnd()).digest('hex');
    expect(pod.metadata.annotations?.['checksum/plugin-exemptions']).toBe(checksum);
    // The selectors read namespaces, which neither default plugin does.
    expect(readsNamespaces(objects)).toBe(true);
  });

  it('exemptions by name, user, group or service account read no namespaces', async () => {
    const { objects, rules } = await serverReads({
      exemptions: { AlwaysPullImages: { namespaces: ['istio-system'], serviceAccounts: ['a/b'] } },
    });
    expect(rules.get('AlwaysPullImages')?.namespaces).toEqual(['istio-system']);
    expect(readsNamespaces(objects)).toBe(false);
  });

  it('a change of exemptions rolls the pods', async () => {
    const checksum = async (namespaces: string[]) =>
      (await serverReads({ exemptions: { AlwaysPullImages: { namespaces } } })).pod.metadata.annotations?.['checksum/plugin-exemptions'];
    expect(await checksum(['a'])).not.toBe(await checksum(['b']));
  });

  it("the schema's plugin names are the server's", () => {
    const schema = JSON.parse(readFileSync(join(chartDir, 'values.schema.json'), 'utf8')) as {
      properties: { exemptions: { propertyNames: { enum: string[] } } };
    };
    expect(schema.properties.exemptions.propertyNames.enum).toEqual(pluginNames);
  });

  it.each([
    ['an unknown plugin', { PodSecurity: { users: ['a'] } }, "invalid propertyName 'PodSecurity'"],
    ['an unknown rule', { AlwaysPullImages: { namespace: ['a'] } }, 'namespace'],
    ['a namespace name that is not one', { AlwaysPullImages: { namespaces: ['Team_A'] } }, 'Team_A'],
    ['a service account without its namespace', { AlwaysPullImages: { serviceAccounts: ['vendor-operator'] } }, 'vendor-operator'],
    ['an empty selector', { AlwaysPullImages: { namespaceSelectors: [{}] } }, 'namespaceSelectors'],
    [
      'an unknown operator',
      { AlwaysPullImages: { namespaceSelectors: [{ matchExpressions: [{ key: 'a', operator: 'Equals' }] }] } },
      'operator',
    ],
  ])('the schema refuses %s', (_, exemptions, detail) => {
    const result = runHelm('template', { values: { exemptions } });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain('values don');
    expect(result.stderr).toContain(detail);
  });
});
