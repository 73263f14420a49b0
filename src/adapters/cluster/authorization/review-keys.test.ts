import { describe, expect, it } from 'vitest';
import type { UserInfo } from '../../../api/types.ts';
import type { AuthorizationAttributes, ResourceAttributes } from '../../../ports/authorizer.ts';
import { subjectAccessReviewSpec } from './authorizer.ts';
import { flatKey, identitySpec, maxIdentitySpecLength, ReviewKeys } from './review-keys.ts';

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/** A fixed pseudo-random order (mulberry32), the same on every run. */
function shuffle<T>(items: T[], seed: number): T[] {
  let state = seed;
  const next = () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

// Questions that differ in one field each, and pairs the spec cannot tell apart (an empty field
// and an absent one). The key must be equal exactly when the specs sent would be equal.
const users: UserInfo[] = [
  { username: 'alice', uid: 'u1', groups: ['dev', 'system:authenticated'] },
  { username: 'alice', uid: 'u1', groups: ['system:authenticated', 'dev'] },
  { username: 'alice', uid: 'u2', groups: ['dev', 'system:authenticated'] },
  { username: 'alice', uid: 'u1', groups: ['dev'] },
  { username: 'alice', uid: 'u1', groups: ['dev', 'system:authenticated'], extra: { scopes: ['a'] } },
  { username: 'alice', uid: 'u1', groups: ['dev', 'system:authenticated'], extra: { scopes: ['a', 'b'] } },
  { username: 'alice', uid: 'u1', groups: ['dev', 'system:authenticated'], extra: { 'scopes.b': ['a'], scopes: ['b'] } },
  { username: 'alice', uid: 'u1', groups: ['dev', 'system:authenticated'], extra: { scopes: ['b'], 'scopes.b': ['a'] } },
  { username: 'alice', uid: 'u1', groups: ['dev', 'system:authenticated'], extra: {} },
  { username: 'alice', uid: 'u1', groups: [] },
  { username: 'alice', uid: 'u1' },
  { username: 'alice', uid: '', groups: [] },
  { username: 'alice' },
  { username: 'bob' },
  { username: '1:alice' },
  { uid: 'alice' },
  { groups: ['alice'] },
  {},
];

const base: ResourceAttributes = {
  verb: 'update',
  namespace: 'ns',
  group: 'apps',
  version: 'v1',
  resource: 'replicasets',
  subresource: 'finalizers',
  name: 'web',
};
const resources: ResourceAttributes[] = [
  base,
  { ...base, name: '' },
  { ...base, name: undefined },
  { ...base, namespace: '' },
  { ...base, namespace: 'ns2' },
  // Shifting characters between neighbouring fields must not spell the same key.
  { ...base, namespace: 'nsupdate', verb: '' },
  { ...base, namespace: 'n', verb: 'supdate' },
  { ...base, subresource: 'finalizersweb', name: '' },
  { ...base, subresource: 'finalizers1', name: 'web' },
  { ...base, name: '3:web' },
  { ...base, group: '*', version: '*', resource: '*', name: '*', namespace: '' },
  { ...base, verb: 'delete' },
  { ...base, fieldSelector: {} },
  { ...base, fieldSelector: { rawSelector: 'a=b' } },
  { ...base, labelSelector: { rawSelector: 'a=b' } },
  { ...base, labelSelector: { requirements: [{ key: 'a', operator: 'In', values: ['b'] }] } },
  { ...base, labelSelector: { requirements: [{ key: 'a', operator: 'In', values: [] }] } },
  { ...base, labelSelector: { requirements: [{ key: 'a', operator: 'In' }] } },
  { ...base, labelSelector: { requirements: [] } },
];

function questions(): AuthorizationAttributes[] {
  const out: AuthorizationAttributes[] = [];
  for (const user of users) {
    for (const resourceAttributes of resources) out.push({ user, resourceAttributes });
    out.push({ user, nonResourceAttributes: { verb: 'get', path: '/healthz' } });
    out.push({ user, nonResourceAttributes: { verb: 'get', path: '' } });
    out.push({ user, nonResourceAttributes: { verb: '', path: 'get' } });
    out.push({ user, resourceAttributes: { verb: 'get', namespace: '', name: '' } });
    out.push({ user });
  }
  return out;
}

describe('SubjectAccessReview cache keys', () => {
  // Asked in table order and in a shuffled order (a key may reuse the one before it), with mutable
  // identities and with frozen ones (which keep their number).
  it.each([
    ['in table order', false, false],
    ['shuffled', true, false],
    ['in table order, frozen identities', false, true],
    ['shuffled, frozen identities', true, true],
  ])('are equal exactly when the specs sent are equal, asked %s', (_label, shuffled, frozen) => {
    const keys = new ReviewKeys(1024);
    const frozenUsers = new Map(users.map((user) => [user, deepFreeze(structuredClone(user))]));
    let asked = questions().map((q) => (frozen ? { ...q, user: frozenUsers.get(q.user)! } : q));
    if (shuffled) asked = shuffle(asked, 7);
    const all = asked.map((q) => ({ key: flatKey(keys.keyFor(q)), spec: JSON.stringify(subjectAccessReviewSpec(q)) }));
    const keyBySpec = new Map<string, string>();
    const specByKey = new Map<string, string>();
    for (const { key, spec } of all) {
      expect(keyBySpec.get(spec) ?? key).toBe(key);
      expect(specByKey.get(key) ?? spec).toBe(spec);
      keyBySpec.set(spec, key);
      specByKey.set(key, spec);
    }
    // The table does have questions the spec cannot tell apart, and many it can.
    expect(keyBySpec.size).toBeLessThan(all.length);
    expect(keyBySpec.size).toBeGreaterThan(users.length * 10);
  });

  it('read a mutable identity every time, so a changed identity never keeps its old key', () => {
    const keys = new ReviewKeys(16);
    const user: UserInfo = { username: 'alice', groups: ['dev'] };
    const question = { user, resourceAttributes: base };
    const before = flatKey(keys.keyFor(question));
    user.groups!.push('system:masters');
    expect(flatKey(keys.keyFor(question))).not.toBe(before);
    expect(flatKey(keys.keyFor({ user: { username: 'alice', groups: ['dev'] }, resourceAttributes: base }))).toBe(before);
  });

  it('give a frozen identity the same key as an equal mutable one', () => {
    const keys = new ReviewKeys(16);
    const frozen = Object.freeze({
      username: 'alice',
      groups: Object.freeze(['dev']),
      extra: Object.freeze({ scopes: Object.freeze(['a']) }),
    }) as unknown as UserInfo;
    const first = flatKey(keys.keyFor({ user: frozen, resourceAttributes: base }));
    expect(flatKey(keys.keyFor({ user: frozen, resourceAttributes: base }))).toBe(first);
    expect(flatKey(keys.keyFor({ user: { username: 'alice', groups: ['dev'], extra: { scopes: ['a'] } }, resourceAttributes: base }))).toBe(
      first,
    );
  });

  it("never give a dropped identity's number to another identity", () => {
    const keys = new ReviewKeys(1);
    const alice = flatKey(keys.keyFor({ user: { username: 'alice' }, resourceAttributes: base }));
    const bob = flatKey(keys.keyFor({ user: { username: 'bob' }, resourceAttributes: base }));
    const aliceAgain = flatKey(keys.keyFor({ user: { username: 'alice' }, resourceAttributes: base }));
    expect(new Set([alice, bob, aliceAgain]).size).toBe(3);
  });

  it('hold a digest per identity, not the identity: a thousand groups cost no more than one', () => {
    const keys = new ReviewKeys(1024);
    const numbers = new Set<string>();
    for (let i = 0; i < 100; i++) {
      const groups = Array.from({ length: 1000 }, (_, g) => `team-${i}-group-${g}`);
      numbers.add(keys.keyFor({ user: { username: `user-${i}`, groups }, resourceAttributes: base }).family);
    }
    expect(numbers.size).toBe(100);
    // "#" and a SHA-256 in base64, two bytes a character, and the entry's own cost.
    expect(keys.identityBytes).toBe(100 * (2 * 45 + 160));
  });

  it('hold a small identity as its spec, with nothing to hash, and a longer one as its digest', () => {
    const keys = new ReviewKeys(4);
    const user = {
      username: 'system:serviceaccount:kube-system:replicaset-controller',
      groups: ['system:serviceaccounts', 'system:authenticated'],
    };
    keys.keyFor({ user, resourceAttributes: base });
    expect(keys.identityBytes).toBe(2 * (1 + JSON.stringify(identitySpec(user)).length) + 160);
    // Just over the length kept as it is: keyed by its digest instead.
    const long = { username: 'u'.repeat(maxIdentitySpecLength - '{"user":""}'.length + 1) };
    const other = new ReviewKeys(4);
    other.keyFor({ user: long, resourceAttributes: base });
    expect(other.identityBytes).toBe(2 * 45 + 160);
  });
});
