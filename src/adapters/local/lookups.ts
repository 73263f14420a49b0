// Lookups served from the local cluster state: the "cache" and the "live read" are the same
// in-memory index, so a cache miss is a definite NotFound.
import type { KubeObject } from '../../api/types.ts';
import type { Lookups, ResourceLookup } from '../../ports/lookups.ts';
import type { ClusterState } from './cluster-state.ts';

export function createLocalLookups(state: ClusterState): Lookups {
  return {
    serviceAccounts: indexLookup(state.serviceAccounts),
    secrets: indexLookup(state.secrets),
    runtimeClasses: indexLookup(state.runtimeClasses),
    // Namespaces are cluster-scoped: indexed by name alone, whatever metadata.namespace says.
    namespaces: indexLookup(state.namespaces.map((namespace) => ({ ...namespace, metadata: { ...namespace.metadata, namespace: '' } }))),
    nodes: indexLookup(state.nodes.map((node) => ({ ...node, metadata: { ...node.metadata, namespace: '' } }))),
  };
}

function indexLookup<T extends KubeObject>(objects: readonly T[]): ResourceLookup<T> {
  const byKey = new Map<string, T>();
  for (const obj of objects) byKey.set(key(obj.metadata?.namespace ?? '', obj.metadata?.name ?? ''), obj);
  const get = (namespace: string, name: string): T | undefined => {
    const found = byKey.get(key(namespace, name));
    // Hand out copies: a plugin that mutates what it read must not change the state.
    return found === undefined ? undefined : structuredClone(found);
  };
  return {
    cached: get,
    live: async (namespace, name) => get(namespace, name),
  };
}

function key(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}
