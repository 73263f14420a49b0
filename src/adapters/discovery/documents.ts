// Discovery as an ordered list of API groups, each with its versions and resources: the shape
// client-go's restmapper.GetAPIGroupResources gives NewDiscoveryRESTMapper. Both the local mapper
// (cluster-state file, built-in snapshot, CRDs) and the cluster mapper (/api, /apis) build it.
import { parseGroupVersion } from '../../api/types.ts';
import type { APIResource, APIResourceList, CustomResourceDefinition } from '../local/cluster-state.ts';

export interface DiscoveredVersion {
  version: string;
  resources: readonly APIResource[];
}

export interface DiscoveredGroup {
  /** "" for the core group. */
  name: string;
  /** In discovery order (the server lists the preferred version first). */
  versions: DiscoveredVersion[];
}

/** Groups in order of first appearance; a group version listed twice has its resources merged. */
export function groupsFromResourceLists(lists: readonly APIResourceList[]): DiscoveredGroup[] {
  const groups: DiscoveredGroup[] = [];
  for (const list of lists) {
    const { group, version } = parseGroupVersion(list.groupVersion);
    addResources(groups, group, version, list.resources);
  }
  return groups;
}

/** Adds each served version of each CRD, as the apiextensions server would publish it. */
export function withCustomResources(groups: readonly DiscoveredGroup[], crds: readonly CustomResourceDefinition[]): DiscoveredGroup[] {
  const out = groups.map((g) => ({ name: g.name, versions: g.versions.map((v) => ({ ...v, resources: [...v.resources] })) }));
  for (const crd of crds) {
    const { group, names, scope } = crd.spec;
    const served = crd.spec.versions.filter((v) => v.served).map((v) => v.name);
    for (const version of served.sort(compareKubeAwareVersions)) {
      const resource: APIResource = { name: names.plural, namespaced: scope === 'Namespaced', kind: names.kind };
      if (names.singular !== undefined) resource.singularName = names.singular;
      addResources(out, group, version, [resource]);
    }
  }
  return out;
}

function addResources(groups: DiscoveredGroup[], group: string, version: string, resources: readonly APIResource[]): void {
  let entry = groups.find((g) => g.name === group);
  if (entry === undefined) {
    entry = { name: group, versions: [] };
    groups.push(entry);
  }
  const existing = entry.versions.find((v) => v.version === version);
  if (existing === undefined) {
    entry.versions.push({ version, resources: [...resources] });
    return;
  }
  const names = new Set(existing.resources.map((r) => r.name));
  existing.resources = [...existing.resources, ...resources.filter((r) => !names.has(r.name))];
}

const kubeVersion = /^v(\d+)(?:(alpha|beta)(\d+))?$/;

/**
 * apimachinery's CompareKubeAwareVersionStrings as a sort order: GA before beta before alpha,
 * higher numbers first, then anything else alphabetically.
 */
export function compareKubeAwareVersions(a: string, b: string): number {
  const rank = (v: string): [number, number, number] | undefined => {
    const m = kubeVersion.exec(v);
    if (m === null) return undefined;
    const stability = m[2] === undefined ? 2 : m[2] === 'beta' ? 1 : 0;
    return [stability, Number(m[1]), m[3] === undefined ? 0 : Number(m[3])];
  };
  const ra = rank(a);
  const rb = rank(b);
  if (ra === undefined && rb === undefined) return a < b ? -1 : a > b ? 1 : 0;
  if (ra === undefined) return 1;
  if (rb === undefined) return -1;
  for (let i = 0; i < 3; i++) {
    if (ra[i] !== rb[i]) return rb[i]! - ra[i]!;
  }
  return 0;
}
