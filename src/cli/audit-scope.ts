// What `audit` looks at, the same offline and on a cluster: pods, Services and the workloads whose
// controllers create pods, and any other object with owner references — each as the CREATE that
// would make it today. An object a workload audited itself would make (a ReplicaSet's pod, a
// Deployment's ReplicaSet, a CronJob's Job) is reported under that workload, not again on its own.
import type { KubeObject } from '../api/types.ts';
import type { RestMapper, RestMapping } from '../ports/rest-mapper.ts';
import type { ListedResource } from '../wiring/cluster-objects.ts';
import { isMadeByWorkload, isWorkload } from '../workloads/index.ts';

/** What a cluster audit lists, in this order: every kind audited, and two that often carry owner references. */
export const clusterResources: readonly ListedResource[] = [
  { group: '', version: 'v1', resource: 'pods', kind: 'Pod' },
  { group: '', version: 'v1', resource: 'services', kind: 'Service' },
  { group: '', version: 'v1', resource: 'replicationcontrollers', kind: 'ReplicationController' },
  { group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment' },
  { group: 'apps', version: 'v1', resource: 'replicasets', kind: 'ReplicaSet' },
  { group: 'apps', version: 'v1', resource: 'statefulsets', kind: 'StatefulSet' },
  { group: 'apps', version: 'v1', resource: 'daemonsets', kind: 'DaemonSet' },
  { group: 'batch', version: 'v1', resource: 'jobs', kind: 'Job' },
  { group: 'batch', version: 'v1', resource: 'cronjobs', kind: 'CronJob' },
  { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap' },
  { group: '', version: 'v1', resource: 'persistentvolumeclaims', kind: 'PersistentVolumeClaim' },
];

/** Whether the object is audited on its own (false: skipped). */
export function isAudited(object: KubeObject): boolean {
  if (isMadeByWorkload(object)) return false;
  const type = `${object.apiVersion} ${object.kind}`;
  if (type === 'v1 Pod' || type === 'v1 Service' || isWorkload(object)) return true;
  const references = object.metadata?.ownerReferences;
  return Array.isArray(references) && references.length > 0;
}

// What the API server set when it stored the object, which no CREATE carries.
const storedOnly = [
  'resourceVersion',
  'managedFields',
  'creationTimestamp',
  'generation',
  'selfLink',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
] as const;

/** The object as a CREATE of it would send it: without its status and what storing it set (the uid stays: owners are known by it). */
export function asCreated(object: KubeObject): KubeObject {
  const { status: _, ...rest } = object as KubeObject & { status?: unknown };
  if (rest.metadata === undefined) return rest;
  const metadata: Record<string, unknown> = { ...rest.metadata };
  for (const field of storedOnly) delete metadata[field];
  return { ...rest, metadata: metadata as KubeObject['metadata'] };
}

/** A REST mapper for the listed resources, where the backend has none (no enabled plugin reads discovery). */
export function listedResourcesMapper(resources: readonly ListedResource[]): RestMapper {
  return {
    mappingsFor: async ({ group, kind }, versions) => {
      const found: RestMapping[] = resources
        .filter((r) => r.group === group && r.kind === kind && (versions.length === 0 || versions.includes(r.version)))
        .map((r) => ({
          resource: { group: r.group, version: r.version, resource: r.resource },
          groupVersionKind: { group: r.group, version: r.version, kind: r.kind },
          scope: 'namespace',
        }));
      if (found.length === 0) throw new Error(`no matches for kind "${kind}" in group "${group}"`);
      return found;
    },
  };
}
