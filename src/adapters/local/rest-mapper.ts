// The REST mapper for local mode (`review`, `serve --cluster-state`): discovery is the cluster-state
// file's APIResourceList documents when it has any (a snapshot of a real cluster), otherwise the
// built-in snapshot of standard resources; CRDs in the file are added either way.

import type { RestMapper } from '../../ports/rest-mapper.ts';
import { groupsFromResourceLists, withCustomResources } from '../discovery/documents.ts';
import { DiscoveryRestMapping } from '../discovery/rest-mapping.ts';
import type { ClusterState } from './cluster-state.ts';
import { builtInDiscovery } from './discovery-snapshot.ts';

export function createLocalRestMapper(state: ClusterState): RestMapper {
  const lists = state.apiResourceLists.length > 0 ? state.apiResourceLists : builtInDiscovery;
  const mapping = new DiscoveryRestMapping(withCustomResources(groupsFromResourceLists(lists), state.customResourceDefinitions));
  return {
    // Everything is in memory; a kind it does not know rejects with the no-match error.
    mappingsFor: async (groupKind, versions) => mapping.mappingsFor(groupKind, versions),
  };
}
