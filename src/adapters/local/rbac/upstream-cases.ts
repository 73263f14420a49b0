// upstream rbac_test.go TestAuthorizer, every case and every shouldPass/shouldFail row, as data: the
// authorizer's own tests and the explanation tests (every denial, granted by its suggestion) share it.
import type { ClusterRole, ClusterRoleBinding, Role, RoleBinding } from '../../../api/rbac.ts';
import type { AuthorizationAttributes } from '../../../ports/authorizer.ts';
import {
  bindToClusterRole,
  newClusterRole,
  newClusterRoleBinding,
  newRoleBinding,
  newRule,
  nonResourceAttributes,
  resourceAttributes as attrs,
} from './test-helpers.ts';

export interface State {
  roles?: Role[];
  roleBindings?: RoleBinding[];
  clusterRoles?: ClusterRole[];
  clusterRoleBindings?: ClusterRoleBinding[];
}
export const upstreamCases: Array<State & { name: string; shouldPass: AuthorizationAttributes[]; shouldFail: AuthorizationAttributes[] }> = [
  {
    name: 'case 0: ClusterRole bound by a RoleBinding in ns1',
    clusterRoles: [newClusterRole('admin', newRule('*', '*', '*', '*'))],
    roleBindings: [newRoleBinding('ns1', 'admin', bindToClusterRole, 'User:admin', 'Group:admins')],
    shouldPass: [
      attrs('admin', '', 'get', 'Pods', '', 'ns1', ''),
      attrs('admin', '', 'watch', 'Pods', '', 'ns1', ''),
      attrs('admin', 'group1', 'watch', 'Foobar', '', 'ns1', ''),
      attrs('joe', 'admins', 'watch', 'Foobar', '', 'ns1', ''),
      attrs('joe', 'group1,admins', 'watch', 'Foobar', '', 'ns1', ''),
    ],
    shouldFail: [
      attrs('admin', '', 'GET', 'Pods', '', 'ns2', ''),
      attrs('admin', '', 'GET', 'Nodes', '', '', ''),
      attrs('admin', 'admins', 'GET', 'Pods', '', 'ns2', ''),
      attrs('admin', 'admins', 'GET', 'Nodes', '', '', ''),
    ],
  },
  {
    name: 'case 1: non-resource URLs',
    clusterRoles: [
      newClusterRole('non-resource-url-getter', newRule('get', '', '', '/apis')),
      newClusterRole('non-resource-url', newRule('*', '', '', '/apis')),
      newClusterRole('non-resource-url-prefix', newRule('get', '', '', '/apis/*')),
    ],
    clusterRoleBindings: [
      newClusterRoleBinding('non-resource-url-getter', 'User:foo', 'Group:bar'),
      newClusterRoleBinding('non-resource-url', 'User:admin', 'Group:admin'),
      newClusterRoleBinding('non-resource-url-prefix', 'User:prefixed', 'Group:prefixed'),
    ],
    shouldPass: [
      nonResourceAttributes({ username: 'foo' }, 'get', '/apis'),
      nonResourceAttributes({ groups: ['bar'] }, 'get', '/apis'),
      nonResourceAttributes({ username: 'admin' }, 'get', '/apis'),
      nonResourceAttributes({ groups: ['admin'] }, 'get', '/apis'),
      nonResourceAttributes({ username: 'admin' }, 'watch', '/apis'),
      nonResourceAttributes({ groups: ['admin'] }, 'watch', '/apis'),
      nonResourceAttributes({ username: 'prefixed' }, 'get', '/apis/v1'),
      nonResourceAttributes({ groups: ['prefixed'] }, 'get', '/apis/v1'),
      nonResourceAttributes({ username: 'prefixed' }, 'get', '/apis/v1/foobar'),
      nonResourceAttributes({ groups: ['prefixed'] }, 'get', '/apis/v1/foorbar'),
    ],
    shouldFail: [
      // wrong verb
      nonResourceAttributes({ username: 'foo' }, 'watch', '/apis'),
      nonResourceAttributes({ groups: ['bar'] }, 'watch', '/apis'),
      // wrong path
      nonResourceAttributes({ username: 'foo' }, 'get', '/api/v1'),
      nonResourceAttributes({ groups: ['bar'] }, 'get', '/api/v1'),
      nonResourceAttributes({ username: 'admin' }, 'get', '/api/v1'),
      nonResourceAttributes({ groups: ['admin'] }, 'get', '/api/v1'),
      // not covered by prefix
      nonResourceAttributes({ username: 'prefixed' }, 'get', '/api/v1'),
      nonResourceAttributes({ groups: ['prefixed'] }, 'get', '/api/v1'),
    ],
  },
  {
    name: 'case 2: a bare resource rule does not cover its subresources',
    clusterRoles: [newClusterRole('admin', newRule('*', '*', 'pods', '*'))],
    roleBindings: [newRoleBinding('ns1', 'admin', bindToClusterRole, 'User:admin', 'Group:admins')],
    shouldPass: [attrs('admin', '', 'get', 'pods', '', 'ns1', '')],
    shouldFail: [attrs('admin', '', 'get', 'pods', 'status', 'ns1', '')],
  },
  {
    name: 'case 3: pods/status and */scale rules',
    clusterRoles: [newClusterRole('admin', newRule('*', '*', 'pods/status', '*'), newRule('*', '*', '*/scale', '*'))],
    roleBindings: [newRoleBinding('ns1', 'admin', bindToClusterRole, 'User:admin', 'Group:admins')],
    shouldPass: [
      attrs('admin', '', 'get', 'pods', 'status', 'ns1', ''),
      attrs('admin', '', 'get', 'pods', 'scale', 'ns1', ''),
      attrs('admin', '', 'get', 'deployments', 'scale', 'ns1', ''),
      attrs('admin', '', 'get', 'anything', 'scale', 'ns1', ''),
    ],
    shouldFail: [attrs('admin', '', 'get', 'pods', '', 'ns1', '')],
  },
];
