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
   * (upstream RESTMappings(groupKind, versions...)). Rejects when there is no match or when
   * discovery cannot answer within the signal's deadline.
   */
  mappingsFor(groupKind: { group: string; kind: string }, versions: readonly string[], signal?: AbortSignal): Promise<RestMapping[]>;
}
