// Bindings indexed by the subjects they name, so a decision looks only at bindings that can
// apply to the requester instead of scanning every binding (clusters carry 10k+ RoleBindings).
// Every subject kind reduces to a username or a group: a ServiceAccount subject is the username
// system:serviceaccount:<ns>:<name>, exactly what appliesToUser compares.

import type { Subject } from '../../../api/rbac.ts';
import type { UserInfo } from '../../../api/types.ts';
import { GroupKind, ServiceAccountKind, serviceAccountSubjectNamespace, serviceAccountUsername, UserKind } from './subjects.ts';

const userKey = (name: string) => `u:${name}`;
const groupKey = (name: string) => `g:${name}`;

/** The key a subject is indexed under; undefined when it can never apply (unknown kind, SA without namespace). */
export function subjectKey(subject: Subject, bindingNamespace: string): string | undefined {
  switch (subject.kind) {
    case UserKind:
      return userKey(subject.name);
    case GroupKind:
      return groupKey(subject.name);
    case ServiceAccountKind: {
      const namespace = serviceAccountSubjectNamespace(subject, bindingNamespace);
      return namespace === '' ? undefined : userKey(serviceAccountUsername(namespace, subject.name));
    }
    default:
      return undefined;
  }
}

/** The keys a binding must be indexed under to apply to this user: the name and each group. */
export function keysOf(user: UserInfo): string[] {
  return [userKey(user.username ?? ''), ...[...new Set(user.groups ?? [])].map(groupKey)];
}

/** Positions (in load order) of bindings, per subject key. */
export class SubjectIndex {
  readonly #byKey = new Map<string, number[]>();

  add(subjects: readonly Subject[] | undefined, bindingNamespace: string, position: number): void {
    for (const subject of subjects ?? []) {
      const key = subjectKey(subject, bindingNamespace);
      if (key === undefined) continue;
      const positions = this.#byKey.get(key);
      if (positions === undefined) this.#byKey.set(key, [position]);
      else if (positions[positions.length - 1] !== position) positions.push(position);
    }
  }

  /** Candidate bindings for this user, ascending: load order decides which allowing binding is named. */
  candidates(user: UserInfo): number[] {
    const lists: number[][] = [];
    for (const key of keysOf(user)) {
      const positions = this.#byKey.get(key);
      if (positions) lists.push(positions);
    }
    if (lists.length === 0) return [];
    if (lists.length === 1) return lists[0]!;
    return [...new Set(lists.flat())].sort((a, b) => a - b);
  }
}
