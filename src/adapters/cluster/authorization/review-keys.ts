// Cache keys for SubjectAccessReview answers. Upstream's webhook authorizer keys its cache by the
// whole spec's JSON, and so must we in effect: two questions share an answer only when their
// specs are equal, identity included. But building that JSON and hashing it (a few hundred
// characters with a service account's groups and extra) costs more than the rest of a cache hit,
// and a narrowly scoped user's request asks a dozen questions with the same identity, most of
// them differing only in the owner's name.
//
// So a key is a family and a name. The identity's part of the spec (user, uid, groups, extra, as
// the spec carries them) is interned to a number that is never given to any other identity (the
// table holds a small identity's spec as it is, a large one's SHA-256: one with a thousand groups
// is 50 KB, while a service account's is 200 characters, and hashing those on every request cost
// about five times building them); the family is that number and the question's other fields, each
// prefixed with its length so no two questions spell the same family; the name is the object's
// name. The last frozen identity asked about keeps its number and the last family is reused while
// only the name changes, so a request builds a handful of strings instead of a dozen spec
// documents, and the cache finds an answer with two look-ups on strings whose hashes V8 already
// holds. Equal keys ⇔ equal specs: an identity that falls out of the table gets a new number, which
// only costs its cached answers, never answers someone else.
import { createHash } from 'node:crypto';
import type { UserInfo } from '../../../api/types.ts';
import type { AuthorizationAttributes, ResourceAttributes, SelectorAttributes } from '../../../ports/authorizer.ts';
import { TtlCache } from '../client/ttl-cache.ts';

/** Where a question's answer is cached: its family's key, then the object's name. */
export interface ReviewKey {
  readonly family: string;
  readonly name: string;
}

/** The key as one string (for questions on the wire, where a string costs nothing that matters). */
export function flatKey(key: ReviewKey): string {
  return `${key.family.length}:${key.family}${key.name}`;
}

/**
 * An identity's spec up to this length is its own key; a longer one is keyed by its digest. So no
 * key is longer than 257 characters, and a full table of 8,192 identities (the default) holds about
 * 5 MiB: the bound on entries bounds the bytes too.
 */
export const maxIdentitySpecLength = 256;

export class ReviewKeys {
  readonly #numbers: TtlCache<number>;
  #lastNumber = 0;
  /** The frozen identity asked about last, and its number: a request asks all its questions in a row. */
  #lastUser: UserInfo | undefined;
  #lastUserNumber = 0;
  /** The last family of resource questions built, reused while the questions differ only in name. */
  #lastFamily: { number: number; r: ResourceAttributes; family: string } | undefined;

  /** maxIdentities: identities kept at most (least recently used dropped first). */
  constructor(maxIdentities: number) {
    this.#numbers = new TtlCache<number>(maxIdentities);
  }

  /** What the identity table's keys take (a small spec as it is, a larger one as a digest). */
  get identityBytes(): number {
    return this.#numbers.bytes;
  }

  /**
   * The question's family (the identity and every field but the name) and its name. Questions
   * with the same family and name have equal specs, and only those.
   */
  keyFor(attributes: AuthorizationAttributes): ReviewKey {
    const number = this.#identityNumber(attributes.user);
    const r = attributes.resourceAttributes;
    if (r === undefined) {
      const n = attributes.nonResourceAttributes;
      return { family: n === undefined ? `${number}x` : flat([String(number), 'n', part(n.path), part(n.verb)]), name: '' };
    }
    const name = r.name ?? '';
    const last = this.#lastFamily;
    if (last !== undefined && last.number === number && sameFamily(last.r, r)) return { family: last.family, name };
    const pieces = [
      String(number),
      'r',
      part(r.namespace),
      part(r.verb),
      part(r.group),
      part(r.version),
      part(r.resource),
      part(r.subresource),
    ];
    const selected = r.fieldSelector !== undefined || r.labelSelector !== undefined;
    // Selectors are rare (list and watch questions); the spec's own JSON of them ends the family.
    if (selected)
      pieces.push(
        JSON.stringify([r.fieldSelector, r.labelSelector].map((selector) => (selector === undefined ? null : selectorSpec(selector)))),
      );
    const family = flat(pieces);
    if (!selected) {
      this.#lastFamily = {
        number,
        r: { verb: r.verb, namespace: r.namespace, group: r.group, version: r.version, resource: r.resource, subresource: r.subresource },
        family,
      };
    }
    return { family, name };
  }

  #identityNumber(user: UserInfo): number {
    if (user === this.#lastUser) return this.#lastUserNumber;
    const spec = JSON.stringify(identitySpec(user));
    // Prefixed, so a spec and a digest never spell the same key.
    const identity = spec.length <= maxIdentitySpecLength ? `=${spec}` : `#${createHash('sha256').update(spec).digest('base64')}`;
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

/** Same fields but the name, and no selectors (a family with selectors is never remembered). */
function sameFamily(a: ResourceAttributes, b: ResourceAttributes): boolean {
  return (
    b.fieldSelector === undefined &&
    b.labelSelector === undefined &&
    (a.namespace ?? '') === (b.namespace ?? '') &&
    (a.verb ?? '') === (b.verb ?? '') &&
    (a.group ?? '') === (b.group ?? '') &&
    (a.version ?? '') === (b.version ?? '') &&
    (a.resource ?? '') === (b.resource ?? '') &&
    (a.subresource ?? '') === (b.subresource ?? '')
  );
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
    spec.extra = Object.fromEntries(
      Object.keys(user.extra)
        .sort()
        .map((k) => [k, [...(user.extra?.[k] ?? [])]]),
    );
  }
  return spec;
}

/**
 * The pieces as one string, built whole. A string built with + or a template literal is kept by
 * V8 as a tree of its pieces, and a cache key keeps that tree alive: two dozen small strings per
 * cached answer instead of one. Array join builds a flat string.
 */
function flat(pieces: string[]): string {
  return pieces.join('');
}

/** An empty and an absent field are the same to the spec (omitempty), so both are "0:". */
function part(value: string | undefined): string {
  return value ? `${value.length}:${value}` : '0:';
}

/** A selector as the spec carries it (an empty one is kept as {}: only an absent one is left out). */
export function selectorSpec(input: SelectorAttributes): {
  rawSelector?: string;
  requirements?: Array<{ key: string; operator: string; values?: string[] }>;
} {
  const out: { rawSelector?: string; requirements?: Array<{ key: string; operator: string; values?: string[] }> } = {};
  if (input.rawSelector) out.rawSelector = input.rawSelector;
  if (input.requirements !== undefined && input.requirements.length > 0) {
    out.requirements = input.requirements.map((r) =>
      r.values !== undefined && r.values.length > 0
        ? { key: r.key, operator: r.operator, values: [...r.values] }
        : { key: r.key, operator: r.operator },
    );
  }
  return out;
}

function isDeeplyFrozen(user: UserInfo): boolean {
  if (!Object.isFrozen(user)) return false;
  if (user.groups !== undefined && !Object.isFrozen(user.groups)) return false;
  if (user.extra === undefined) return true;
  return Object.isFrozen(user.extra) && Object.values(user.extra).every((values) => Object.isFrozen(values));
}
