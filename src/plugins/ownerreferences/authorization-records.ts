// The three authorization questions the plugin asks, built exactly as upstream's AttributesRecords:
// delete on the dependent itself, the one "finalize anything" wildcard probe, and update on each
// owner's finalizers subresource. Every question carries the requester's full identity.
import type { Attributes } from '../../admission/attributes.ts';
import type { OwnerReference, UserInfo } from '../../api/types.ts';
import type { AuthorizationAttributes } from '../../ports/authorizer.ts';
import { type RestMapping, RestScope } from '../../ports/rest-mapper.ts';

/** delete on the object being written: its namespace, name, group, version, resource and subresource. */
export function deleteDependentRecord(attributes: Attributes): AuthorizationAttributes {
  return {
    user: attributes.userInfo,
    resourceAttributes: {
      verb: 'delete',
      namespace: attributes.namespace,
      group: attributes.resource.group,
      version: attributes.resource.version,
      resource: attributes.resource.resource,
      subresource: attributes.subresource,
      name: attributes.name,
    },
  };
}

/**
 * The wildcard probe: may this user update the finalizers of anything? If so, every per-owner
 * check would pass, so the plugin can skip discovery entirely (upstream finalizeAnythingRecord).
 */
export function finalizeAnythingRecord(user: UserInfo): AuthorizationAttributes {
  return {
    user,
    resourceAttributes: {
      verb: 'update',
      namespace: '',
      group: '*',
      version: '*',
      resource: '*',
      subresource: 'finalizers',
      name: '*',
    },
  };
}

/**
 * update on <resource>/finalizers of the owner, one per REST mapping of its kind. An owner must
 * live in the dependent's namespace, so a namespaced owner is asked about there; a cluster-scoped
 * owner is asked about cluster-wide.
 */
export function ownerFinalizersRecord(attributes: Attributes, ref: OwnerReference, mapping: RestMapping): AuthorizationAttributes {
  return {
    user: attributes.userInfo,
    resourceAttributes: {
      verb: 'update',
      namespace: mapping.scope === RestScope.Namespace ? attributes.namespace : '',
      group: mapping.resource.group,
      version: mapping.resource.version,
      resource: mapping.resource.resource,
      subresource: 'finalizers',
      name: ref.name,
    },
  };
}
