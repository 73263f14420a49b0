// The examples the docs walk through (examples/, docs/deploy.md's kubectl sessions), replayed on a
// server pair of their own: the world is the examples' own namespaces and RBAC, the plugins are
// configured as examples/values/tenant-pinning.yaml configures them, and each example is sent as the
// identity its kubectl line names (`--as=demo-user`, else the admin). An example whose comment opens
// with "Denied" must be denied by the in-tree server too, any other admitted: what the docs claim,
// kube-apiserver's own plugins must do.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { repoRoot } from '../deploy/tools.ts';
import type { RowGroup } from './configured-rows.ts';
import type { OracleCase } from './generate.ts';
import type { OracleResource } from './request.ts';
import type { OraclePlugin } from './servers.ts';

/** Each example and the plugin it shows. */
export const docsExamples: ReadonlyArray<{ file: string; plugin: OraclePlugin }> = [
  { file: 'examples/pod.yaml', plugin: 'AlwaysPullImages' },
  { file: 'examples/pvc.yaml', plugin: 'StorageObjectInUseProtection' },
  { file: 'examples/configmap-owner-allowed.yaml', plugin: 'OwnerReferencesPermissionEnforcement' },
  { file: 'examples/configmap-owner-denied.yaml', plugin: 'OwnerReferencesPermissionEnforcement' },
  { file: 'examples/tenant-pinning/pod.yaml', plugin: 'PodNodeSelector' },
  { file: 'examples/tenant-pinning/pod-other-pool.yaml', plugin: 'PodNodeSelector' },
  { file: 'examples/tenant-pinning/pod-unlisted-label.yaml', plugin: 'PodNodeSelector' },
  { file: 'examples/tenant-pinning/pod-gpu-toleration.yaml', plugin: 'PodTolerationRestriction' },
];

/** The objects the examples expect to exist. */
const worldFiles = ['examples/namespace.yaml', 'examples/demo-user-rbac.yaml', 'examples/tenant-pinning/namespace.yaml'];
const valuesFile = 'examples/values/tenant-pinning.yaml';

const resourceOf: Record<string, OracleResource> = {
  Pod: 'pods',
  PersistentVolumeClaim: 'persistentvolumeclaims',
  ConfigMap: 'configmaps',
};

function documents(file: string): Array<Record<string, unknown>> {
  return parseAllDocuments(readFileSync(join(repoRoot, file), 'utf8'))
    .map((document) => document.toJS() as Record<string, unknown> | null)
    .filter((document): document is Record<string, unknown> => document !== null);
}

/** One example as the oracle sends it; an example the oracle cannot send is an error, not a quiet skip. */
export function exampleCase(file: string, plugin: OraclePlugin): OracleCase {
  const text = readFileSync(join(repoRoot, file), 'utf8');
  const [object, ...more] = documents(file);
  if (object === undefined || more.length > 0) throw new Error(`${file}: expected one document`);
  const kind = String(object.kind);
  const resource = resourceOf[kind];
  if (resource === undefined) throw new Error(`${file}: the oracle does not send a ${kind}`);
  const namespace = (object.metadata as { namespace?: string } | undefined)?.namespace;
  if (namespace === undefined) throw new Error(`${file}: the example names no namespace`);
  const as = /--as=([\w.@:-]+)/.exec(text)?.[1];
  return {
    id: `docs example ${file}`,
    plugin,
    request: { operation: 'create', resource, namespace, object, ...(as === undefined ? {} : { as: { name: as, groups: [] } }) },
    upstreamExpects: /^# Denied\b/.test(text) ? 'denied' : 'admitted',
  };
}

/** The examples of the selected plugins on a pair configured as the docs' values file says; none when no example's plugin is selected. */
export function docsExampleGroups(plugins: readonly OraclePlugin[]): RowGroup[] {
  const examples = docsExamples.filter((example) => plugins.includes(example.plugin));
  if (examples.length === 0) return [];
  const values = parse(readFileSync(join(repoRoot, valuesFile), 'utf8')) as { plugins: Record<string, Record<string, unknown>> };
  const configuration: Record<string, object> = {};
  for (const [plugin, settings] of Object.entries(values.plugins)) {
    const { enabled: _enabled, mode: _mode, ...rest } = settings;
    configuration[plugin] = rest;
  }
  const selected = [...new Set(examples.map((example) => example.plugin))];
  return [
    {
      name: 'the docs examples',
      plugins: selected,
      world: { configuration, objects: () => worldFiles.flatMap(documents), crds: [], existing: () => [] },
      cases: examples.map(({ file, plugin }) => exampleCase(file, plugin)),
    },
  ];
}
