// Who a suggested binding names: the requester as RBAC matches them. A service account's username
// (system:serviceaccount:<namespace>:<name>) becomes a ServiceAccount subject, any other username a
// User; a request without a username can only be granted through one of its groups.

import { goQuote } from '../api/go-format.ts';
import type { Subject } from '../api/rbac.ts';
import type { UserInfo } from '../api/types.ts';

export const rbacApiGroup = 'rbac.authorization.k8s.io';
const serviceAccountPrefix = 'system:serviceaccount:';
/** Groups every authenticated (or anonymous) request carries: binding one grants everyone. */
const everyoneGroups = new Set(['system:authenticated', 'system:unauthenticated']);

/** The subject to bind, or undefined when the request names neither a user nor a group. */
export function bindingSubject(user: UserInfo): Subject | undefined {
  const username = user.username ?? '';
  const serviceAccount = splitServiceAccount(username);
  if (serviceAccount !== undefined) return { kind: 'ServiceAccount', name: serviceAccount.name, namespace: serviceAccount.namespace };
  if (username !== '') return { kind: 'User', apiGroup: rbacApiGroup, name: username };
  const groups = user.groups ?? [];
  const group = groups.find((g) => !everyoneGroups.has(g));
  return group === undefined ? undefined : { kind: 'Group', apiGroup: rbacApiGroup, name: group };
}

/** serviceaccount.SplitUsername: exactly two non-empty parts after the prefix. */
export function splitServiceAccount(username: string): { namespace: string; name: string } | undefined {
  if (!username.startsWith(serviceAccountPrefix)) return undefined;
  const parts = username.slice(serviceAccountPrefix.length).split(':');
  if (parts.length !== 2 || parts[0] === '' || parts[1] === '') return undefined;
  return { namespace: parts[0]!, name: parts[1]! };
}

/** The requester as a sentence names them: `user "alice"`, or by their groups when nameless. */
export function describeRequester(user: UserInfo, quote: (value: string) => string = goQuote): string {
  const username = user.username ?? '';
  if (username !== '') return `user ${quote(username)}`;
  const groups = user.groups ?? [];
  if (groups.length === 0) return 'a request with no user or group';
  return `a request of group${groups.length > 1 ? 's' : ''} ${groups.map(quote).join(', ')}`;
}
