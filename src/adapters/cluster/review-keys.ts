// Cache keys for SubjectAccessReview answers. Upstream's webhook authorizer keys its cache by the
// whole spec's JSON, and so must we in effect: two questions share an answer only when their
// specs are equal, identity included. Building that JSON and hashing it (a few hundred characters
// with a service account's groups and extra) costs more than the rest of a cache hit, and a
// narrowly scoped user's request asks a dozen questions with the same identity.
//
// So a key has two parts. The identity's part of the spec (user, uid, groups, extra, as the spec
// carries them) is interned to a number that is never given to any other identity, and the last
// frozen identity object asked about keeps its number, so a request's questions compute it once. The question's
// own fields follow, each prefixed with its length so no two questions spell the same key.
// Equal keys ⇔ equal specs: an identity that falls out of the table gets a new number, which only
// costs its cached answers, never answers someone else.
import type { UserInfo } from '../../api/types.ts';
import type { AuthorizationAttributes, SelectorAttributes } from '../../ports/authorizer.ts';
import { TtlCache } from './ttl-cache.ts';

export class ReviewKeys {
  readonly #numbers: TtlCache<number>;
  #lastNumber = 0;
  /** The frozen identity asked about last, and its number: a request asks all its questions in a row. */
  #lastUser: UserInfo | undefined;
  #lastUserNumber = 0;

  /** maxIdentities: identities kept at most (least recently used dropped first). */
  constructor(maxIdentities: number) {
    this.#numbers = new TtlCache<number>(maxIdentities);
  }

  keyFor(attributes: AuthorizationAttributes): string {
    return `${this.#identityNumber(attributes.user)}${questionKey(attributes)}`;
  }

  #identityNumber(user: UserInfo): number {
    if (user === this.#lastUser) return this.#lastUserNumber;
    const identity = JSON.stringify(identitySpec(user));
    let number = this.#numbers.entry(identity, 0)?.value;
    if (number === undefined) {
      number = ++this.#lastNumber;
      this.#numbers.set(identity, number, Number.POSITIVE_INFINITY, 0);
    }
    // Only an identity that cannot change may keep its number: a mutable one is read every time.
    if (isDeeplyFrozen(user)) {
      this.#lastUser = user;
      this.#lastUserNumber = number;
    }
    return number;
  }
}

/**
 * The identity as a SubjectAccessReview spec carries it, in the spec's field order: empty values
 * left out (Go's omitempty), extra's keys sorted (as Go encodes a map), groups and values in order.
 */
export function identitySpec(user: UserInfo): { user?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> } {
  const spec: { user?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> } = {};
  if (user.username) spec.user = user.username;
  if (user.uid) spec.uid = user.uid;
  if (user.groups !== undefined && user.groups.length > 0) spec.groups = [...user.groups];
  if (user.extra !== undefined && Object.keys(user.extra).length > 0) {
    spec.extra = Object.fromEntries(Object.keys(user.extra).sort().map((k) => [k, [...(user.extra?.[k] ?? [])]]));
  }
  return spec;
}

/** The question's fields after the identity: a letter for its kind, then each field length-prefixed. */
function questionKey(attributes: AuthorizationAttributes): string {
  const r = attributes.resourceAttributes;
  if (r !== undefined) {
    const key = `r${part(r.namespace)}${part(r.verb)}${part(r.group)}${part(r.version)}${part(r.resource)}${part(r.subresource)}${part(r.name)}`;
    if (r.fieldSelector === undefined && r.labelSelector === undefined) return key;
    // Selectors are rare (list and watch questions); the spec's own JSON of them ends the key.
    const selectors = [r.fieldSelector, r.labelSelector].map((selector) => (selector === undefined ? null : selectorSpec(selector)));
    return `${key}${JSON.stringify(selectors)}`;
  }
  const n = attributes.nonResourceAttributes;
  return n === undefined ? 'x' : `n${part(n.path)}${part(n.verb)}`;
}

/** An empty and an absent field are the same to the spec (omitempty), so both are "0:". */
function part(value: string | undefined): string {
  return value ? `${value.length}:${value}` : '0:';
}

/** A selector as the spec carries it (an empty one is kept as {}: only an absent one is left out). */
export function selectorSpec(input: SelectorAttributes): { rawSelector?: string; requirements?: Array<{ key: string; operator: string; values?: string[] }> } {
  const out: { rawSelector?: string; requirements?: Array<{ key: string; operator: string; values?: string[] }> } = {};
  if (input.rawSelector) out.rawSelector = input.rawSelector;
  if (input.requirements !== undefined && input.requirements.length > 0) {
    out.requirements = input.requirements.map((r) => (r.values !== undefined && r.values.length > 0 ? { key: r.key, operator: r.operator, values: [...r.values] } : { key: r.key, operator: r.operator }));
  }
  return out;
}

function isDeeplyFrozen(user: UserInfo): boolean {
  if (!Object.isFrozen(user)) return false;
  if (user.groups !== undefined && !Object.isFrozen(user.groups)) return false;
  if (user.extra === undefined) return true;
  return Object.isFrozen(user.extra) && Object.values(user.extra).every((values) => Object.isFrozen(values));
}
