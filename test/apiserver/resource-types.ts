// Resource types the stand-in serves GET/LIST/WATCH for when a test asks (StandInOptions.resources).
import type { ResourceType } from './object-store.ts';

/** Namespaces: cluster-scoped, at /api/v1/namespaces[/name]. */
export const namespaceType: ResourceType = { group: '', version: 'v1', resource: 'namespaces', kind: 'Namespace', namespaced: false };
