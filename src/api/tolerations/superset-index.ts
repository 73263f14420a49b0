// The question upstream asks pairwise — "does some toleration in this list tolerate everything t
// does?" (isSuperset over the list) — answered from an index in constant time per question, so
// merging and whitelisting stay linear in the number of tolerations a pod carries (a 3 MiB pod can
// carry tens of thousands). A superset of t must match t's key or be an empty-key Exists, match t's
// effect or have none, and be Exists or an Equal with t's value; so the candidates are a handful of
// buckets, and per bucket only counts and the longest tolerationSeconds are needed.
import { identityOf, TaintEffect, type TolerationFields, TolerationOperator } from './toleration.ts';

interface Bucket {
  count: number;
  /** Members without tolerationSeconds (unbounded). */
  unbounded: number;
  /** The longest tolerationSeconds among the members that have one, and how many have it. */
  maxSeconds: number | undefined;
  atMax: number;
}

export class SupersetIndex {
  /** Members by identity (apiequality.Semantic.DeepEqual), counted. */
  readonly #identities = new Map<string, number>();
  /** Exists members by key, then effect. Nested maps look up the strings as they are, unjoined. */
  readonly #exists = new Map<string, Map<string, Bucket>>();
  /** Equal (or empty-operator) members by key, then effect, then value. */
  readonly #equal = new Map<string, Map<string, Map<string, Bucket>>>();

  add(toleration: TolerationFields, identity: string = identityOf(toleration)): void {
    this.#identities.set(identity, (this.#identities.get(identity) ?? 0) + 1);
    let buckets: Map<string, Bucket>;
    let bucketKey: string;
    if (toleration.operator === TolerationOperator.Exists) {
      buckets = child(this.#exists, toleration.key);
      bucketKey = toleration.effect;
    } else if (toleration.operator === TolerationOperator.Equal || toleration.operator === '') {
      buckets = child(child(this.#equal, toleration.key), toleration.effect);
      bucketKey = toleration.value;
    } else {
      // An unknown operator is a superset only of tolerations equal to it: the identity covers that.
      return;
    }
    let bucket = buckets.get(bucketKey);
    if (bucket === undefined) {
      bucket = { count: 0, unbounded: 0, maxSeconds: undefined, atMax: 0 };
      buckets.set(bucketKey, bucket);
    }
    bucket.count += 1;
    const seconds = toleration.seconds;
    if (seconds === undefined) bucket.unbounded += 1;
    else if (bucket.maxSeconds === undefined || seconds > bucket.maxSeconds) {
      bucket.maxSeconds = seconds;
      bucket.atMax = 1;
    } else if (seconds === bucket.maxSeconds) bucket.atMax += 1;
  }

  /** Some member is a superset of `toleration` (upstream: isSuperset(member, toleration)). */
  hasSupersetOf(toleration: TolerationFields, identity: string = identityOf(toleration)): boolean {
    return this.#identities.has(identity) || this.#search(toleration, 0);
  }

  /** Some member not equal to `toleration` is a superset of it. */
  hasOtherSupersetOf(toleration: TolerationFields, identity: string = identityOf(toleration)): boolean {
    return this.#search(toleration, this.#identities.get(identity) ?? 0);
  }

  /** `equalMembers` members equal to `toleration` sit in its own bucket and must not count there. */
  #search(toleration: TolerationFields, equalMembers: number): boolean {
    const { key, effect, operator, seconds } = toleration;
    const own = operator === TolerationOperator.Exists ? equalMembers : 0;
    // Exists supersets: the same key, or the empty key (every key); the same effect, or none (every effect).
    if (this.#existsCovers(key, effect, seconds, own)) return true;
    if (effect !== '' && this.#existsCovers(key, '', seconds, 0)) return true;
    if (key !== '') {
      if (this.#existsCovers('', effect, seconds, 0)) return true;
      if (effect !== '' && this.#existsCovers('', '', seconds, 0)) return true;
    }
    // An Equal superset needs the tolerated one to say Equal itself, with the same key and value.
    if (operator !== TolerationOperator.Equal) return false;
    const byEffect = this.#equal.get(key);
    if (byEffect === undefined) return false;
    const same = byEffect.get(effect)?.get(toleration.value);
    if (same !== undefined && covers(same, effect, seconds, equalMembers)) return true;
    const any = effect === '' ? undefined : byEffect.get('')?.get(toleration.value);
    return any !== undefined && covers(any, '', seconds, 0);
  }

  #existsCovers(key: string, effect: string, seconds: number | undefined, excluded: number): boolean {
    const bucket = this.#exists.get(key)?.get(effect);
    return bucket !== undefined && covers(bucket, effect, seconds, excluded);
  }
}

/**
 * Whether the bucket has a member, beyond `excluded` members equal to the tolerated one, whose
 * tolerationSeconds allow it: only a NoExecute superset with a bound must outlast the tolerated one.
 */
function covers(bucket: Bucket, bucketEffect: string, seconds: number | undefined, excluded: number): boolean {
  if (bucketEffect !== TaintEffect.NoExecute) return bucket.count - excluded > 0;
  // The excluded members have the tolerated one's tolerationSeconds.
  if (seconds === undefined) return bucket.unbounded - excluded > 0;
  if (bucket.unbounded > 0) return true;
  if (bucket.maxSeconds === undefined || bucket.maxSeconds < seconds) return false;
  if (bucket.maxSeconds > seconds) return true;
  return bucket.atMax - excluded > 0;
}

/** The map under `key`, made empty on first use. */
function child<V>(map: Map<string, Map<string, V>>, key: string): Map<string, V> {
  let value = map.get(key);
  if (value === undefined) {
    value = new Map();
    map.set(key, value);
  }
  return value;
}
