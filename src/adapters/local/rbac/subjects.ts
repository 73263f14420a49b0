// Which binding subjects a user is (upstream appliesTo / appliesToUser in
// pkg/registry/rbac/validation/rule.go). Note what RBAC does NOT do: it never derives groups.
// "system:serviceaccounts" and "system:serviceaccounts:<ns>" match only when the user's groups
// already carry them — the service-account authenticator (or impersonation) adds them, not RBAC.

import { goQuote } from '../../../api/go-format.ts';
import type { Subject } from '../../../api/rbac.ts';
import type { UserInfo } from '../../../api/types.ts';

export const UserKind = 'User';
export const GroupKind = 'Group';
export const ServiceAccountKind = 'ServiceAccount';

const serviceAccountUsernamePrefix = 'system:serviceaccount:';

/** serviceaccount.MakeUsername. */
export function serviceAccountUsername(namespace: string, name: string): string {
  return `${serviceAccountUsernamePrefix}${namespace}:${name}`;
}

/** The namespace a ServiceAccount subject names: its own, else the binding's; "" means none. */
export function serviceAccountSubjectNamespace(subject: Subject, bindingNamespace: string): string {
  return subject.namespace ? subject.namespace : bindingNamespace;
}

/** `namespace` is the RoleBinding's namespace, "" for a ClusterRoleBinding. */
export function appliesToUser(user: UserInfo, subject: Subject, namespace: string): boolean {
  switch (subject.kind) {
    case UserKind:
      return (user.username ?? '') === subject.name;
    case GroupKind:
      return groupSet(user.groups).has(subject.name);
    case ServiceAccountKind: {
      const saNamespace = serviceAccountSubjectNamespace(subject, namespace);
      if (saNamespace === '') return false;
      return (user.username ?? '') === serviceAccountUsername(saNamespace, subject.name);
    }
    default:
      return false;
  }
}

const groupSets = new WeakMap<readonly string[], Set<string>>();

/**
 * The groups as a set, made once per frozen list (a decoded request's identity is frozen): a
 * requester may carry thousands of groups, and a binding name hundreds.
 */
function groupSet(groups: readonly string[] | undefined): Set<string> {
  if (groups === undefined) return new Set();
  if (!Object.isFrozen(groups)) return new Set(groups);
  let set = groupSets.get(groups);
  if (set === undefined) groupSets.set(groups, (set = new Set(groups)));
  return set;
}

/** The index of the first subject that applies, or -1. The reason names that subject. */
export function appliesTo(user: UserInfo, subjects: readonly Subject[] | undefined, namespace: string): number {
  return (subjects ?? []).findIndex((subject) => appliesToUser(user, subject, namespace));
}

/** describeSubject: ServiceAccounts as "name/namespace". */
export function describeSubject(subject: Subject, bindingNamespace: string): string {
  if (subject.kind === ServiceAccountKind) {
    return `${subject.kind} ${goQuote(`${subject.name}/${serviceAccountSubjectNamespace(subject, bindingNamespace)}`)}`;
  }
  return `${subject.kind} ${goQuote(subject.name)}`;
}
