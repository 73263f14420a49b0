// Who a request acts as. The stand-in authenticates one bearer token (an all-powerful admin); like
// kube-apiserver's impersonation filter it then lets the Impersonate-* headers (`kubectl --as`,
// `--as-group`, `--as-uid`) replace that identity, completing the groups the same way: service
// accounts get their groups when none are asked for, and every named user is system:authenticated.
import type { IncomingHttpHeaders } from 'node:http';
import type { UserInfo } from '../../src/api/types.ts';

export const adminUser: UserInfo = { username: 'stand-in-admin', groups: ['system:masters', 'system:authenticated'] };

const serviceAccountPrefix = 'system:serviceaccount:';
const extraPrefix = 'impersonate-extra-';

/** The requester, or an error message (kube-apiserver answers it with 400) for inconsistent headers. */
export function requestUser(headers: IncomingHttpHeaders): UserInfo | { error: string } {
  const username = single(headers['impersonate-user']);
  const groups = multiple(headers['impersonate-group']);
  const uid = single(headers['impersonate-uid']);
  const extra: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!name.startsWith(extraPrefix)) continue;
    extra[decodeURIComponent(name.slice(extraPrefix.length)).toLowerCase()] = multiple(value);
  }
  if (username === undefined) {
    if (groups.length > 0 || uid !== undefined || Object.keys(extra).length > 0) {
      return { error: 'requested impersonation of groups, uid or extra without impersonating a user' };
    }
    return structuredClone(adminUser);
  }

  const completed = [...groups];
  if (groups.length === 0 && username.startsWith(serviceAccountPrefix)) {
    const namespace = username.slice(serviceAccountPrefix.length).split(':')[0] ?? '';
    completed.push('system:serviceaccounts', `system:serviceaccounts:${namespace}`);
  }
  if (username !== 'system:anonymous' && !completed.some((g) => g === 'system:authenticated' || g === 'system:unauthenticated')) {
    completed.push('system:authenticated');
  }
  const user: UserInfo = { username, groups: completed };
  if (uid !== undefined) user.uid = uid;
  if (Object.keys(extra).length > 0) user.extra = extra;
  return user;
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

// Node joins a repeated header into one "a, b" value; kubectl repeats Impersonate-Group per group.
function multiple(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).flatMap((v) => v.split(', ')).filter((v) => v !== '');
}
