// Kind → resource mapping (upstream meta.RESTMapper), built from discovery.
import type { GroupVersionKind, GroupVersionResource } from '../api/types.ts';

export const RestScope = {
  Namespace: 'namespace',
  Root: 'root',
} as const;
export type RestScope = (typeof RestScope)[keyof typeof RestScope];

export interface RestMapping {
  resource: GroupVersionResource;
  groupVersionKind: GroupVersionKind;
  scope: RestScope;
}

export interface RestMapper {
  /**
   * All mappings for a group and kind, narrowed to the given versions when any are given
   * (upstream RESTMappings(groupKind, versions...)). Throws when there is no match or when
   * discovery cannot answer within the signal's deadline. The answer comes directly when discovery
   * already knows the kind, as a promise when it must be fetched; callers treat a thrown error and
   * a rejection alike.
   */
  mappingsFor(
    groupKind: { group: string; kind: string },
    versions: readonly string[],
    signal?: AbortSignal,
  ): RestMapping[] | Promise<RestMapping[]>;
}
