// The request as the RBAC authorizer sees it (upstream authorizer.Attributes): one flat record,
// so rule matching reads like upstream and the upstream test tables port row by row.
import type { UserInfo } from '../../../api/types.ts';
import type { AuthorizationAttributes } from '../../../ports/authorizer.ts';

export interface RbacRequest {
  user: UserInfo;
  resourceRequest: boolean;
  verb: string;
  namespace: string;
  apiGroup: string;
  resource: string;
  subresource: string;
  name: string;
  path: string;
}

/** Non-resource requests have no namespace, so only ClusterRoleBindings can allow them. */
export function rbacRequestFrom(attributes: AuthorizationAttributes): RbacRequest {
  const resource = attributes.resourceAttributes;
  if (resource) {
    return {
      user: attributes.user,
      resourceRequest: true,
      verb: resource.verb ?? '',
      namespace: resource.namespace ?? '',
      apiGroup: resource.group ?? '',
      resource: resource.resource ?? '',
      subresource: resource.subresource ?? '',
      name: resource.name ?? '',
      path: '',
    };
  }
  const nonResource = attributes.nonResourceAttributes;
  return {
    user: attributes.user,
    resourceRequest: false,
    verb: nonResource?.verb ?? '',
    namespace: '',
    apiGroup: '',
    resource: '',
    subresource: '',
    name: '',
    path: nonResource?.path ?? '',
  };
}
