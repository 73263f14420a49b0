// The question upstream asks pairwise — "does some toleration in this list tolerate everything t
// does?" (isSuperset over the list) — answered from an index in constant time per question, so
// merging and whitelisting stay linear in the number of tolerations a pod carries (a 3 MiB pod can
// carry tens of thousands). A superset of t must match t's key or be an empty-key Exists, match t's
// effect or have none, and be Exists or an Equal with t's value; so the candidates are a handful of
// buckets, and per bucket only counts and the longest tolerationSeconds are needed.
import { identityOf, TaintEffect, TolerationOperator, type TolerationFields } from './toleration.ts';

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
  /** Exists members by [key, effect]. */
  readonly #exists = new Map<string, Bucket>();
  /** Equal (or empty-operator) members by [key, effect, value]. */
  readonly #equal = new Map<string, Bucket>();

  add(toleration: TolerationFields, identity: string = identityOf(toleration)): void {
    this.#identities.set(identity, (this.#identities.get(identity) ?? 0) + 1);
    let buckets: Map<string, Bucket>;
    let bucketKey: string;
    if (toleration.operator === TolerationOperator.Exists) {
      buckets = this.#exists;
      bucketKey = existsKey(toleration.key, toleration.effect);
    } else if (toleration.operator === TolerationOperator.Equal || toleration.operator === '') {
      buckets = this.#equal;
      bucketKey = equalKey(toleration.key, toleration.effect, toleration.value);
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
    const { key, effect, operator } = toleration;
    const keys = key === '' ? [''] : [key, ''];
    const effects = effect === '' ? [''] : [effect, ''];
    for (const candidateKey of keys) {
      for (const candidateEffect of effects) {
        const bucket = this.#exists.get(existsKey(candidateKey, candidateEffect));
        if (bucket === undefined) continue;
        const own = operator === TolerationOperator.Exists && candidateKey === key && candidateEffect === effect;
        if (covers(bucket, candidateEffect, toleration.seconds, own ? equalMembers : 0)) return true;
      }
    }
    // An Equal superset needs the tolerated one to say Equal itself, with the same key and value.
    if (operator !== TolerationOperator.Equal) return false;
    for (const candidateEffect of effects) {
      const bucket = this.#equal.get(equalKey(key, candidateEffect, toleration.value));
      if (bucket === undefined) continue;
      if (covers(bucket, candidateEffect, toleration.seconds, candidateEffect === effect ? equalMembers : 0)) return true;
    }
    return false;
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

function existsKey(key: string, effect: string): string {
  return JSON.stringify([key, effect]);
}

function equalKey(key: string, effect: string, value: string): string {
  return JSON.stringify([key, effect, value]);
}
