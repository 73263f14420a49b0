// The resource types the kubectl-facing stand-in serves: what discovery lists and what the write
// routes accept. Pods, Services, PVs and PVCs are what our plugins act on, ConfigMaps and Deployments
// give ORPE owners and dependents, Namespaces carry the labels namespaceSelectors match and the
// annotations PodNodeSelector and PodTolerationRestriction read, and Widget is a custom resource
// (kubectl sends CRDs merge patches, built-ins strategic merge patches).
import type { ResourceType } from '../apiserver/index.ts';

export interface ServedResource extends ResourceType {
  singularName: string;
  shortNames?: string[];
  /** Subresources discovery lists, by name → kind (e.g. status → Pod). */
  subresources?: Record<string, string>;
  /** True for CRD-defined kinds: kubectl has no Go type for them and sends merge patches. */
  custom?: boolean;
}

const verbs = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

export const servedResources: readonly ServedResource[] = [
  { group: '', version: 'v1', resource: 'namespaces', kind: 'Namespace', namespaced: false, singularName: 'namespace', shortNames: ['ns'], subresources: { status: 'Namespace' } },
  { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true, singularName: 'pod', shortNames: ['po'], subresources: { status: 'Pod', ephemeralcontainers: 'Pod' } },
  { group: '', version: 'v1', resource: 'services', kind: 'Service', namespaced: true, singularName: 'service', shortNames: ['svc'], subresources: { status: 'Service' } },
  { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true, singularName: 'configmap', shortNames: ['cm'] },
  { group: '', version: 'v1', resource: 'persistentvolumes', kind: 'PersistentVolume', namespaced: false, singularName: 'persistentvolume', shortNames: ['pv'], subresources: { status: 'PersistentVolume' } },
  { group: '', version: 'v1', resource: 'persistentvolumeclaims', kind: 'PersistentVolumeClaim', namespaced: true, singularName: 'persistentvolumeclaim', shortNames: ['pvc'], subresources: { status: 'PersistentVolumeClaim' } },
  { group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', namespaced: true, singularName: 'deployment', shortNames: ['deploy'], subresources: { status: 'Deployment' } },
  { group: 'example.com', version: 'v1', resource: 'widgets', kind: 'Widget', namespaced: true, singularName: 'widget', custom: true },
];

/** Discovery's APIResource entries for one group version: each resource, then its subresources. */
export function apiResources(groupVersion: string): Array<Record<string, unknown>> {
  const entries: Array<Record<string, unknown>> = [];
  for (const type of servedResources.filter((t) => apiVersionOf(t) === groupVersion)) {
    entries.push({ name: type.resource, singularName: type.singularName, namespaced: type.namespaced, kind: type.kind, verbs, ...(type.shortNames ? { shortNames: type.shortNames } : {}) });
    for (const [sub, kind] of Object.entries(type.subresources ?? {})) {
      entries.push({ name: `${type.resource}/${sub}`, singularName: '', namespaced: type.namespaced, kind, verbs: ['get', 'patch', 'update'] });
    }
  }
  return entries;
}

export function apiVersionOf(type: Pick<ResourceType, 'group' | 'version'>): string {
  return type.group === '' ? type.version : `${type.group}/${type.version}`;
}

export function servedResource(group: string, version: string, resource: string): ServedResource | undefined {
  return servedResources.find((t) => t.group === group && t.version === version && t.resource === resource);
}

export function servedKind(apiVersion: string, kind: string): ServedResource | undefined {
  return servedResources.find((t) => apiVersionOf(t) === apiVersion && t.kind === kind);
}

export const namespaceType = servedResources[0]!;
