// Toleration merging as upstream's pkg/util/tolerations does it: the union of two lists where a
// toleration already covered by a broader one is dropped, so a RuntimeClass can add tolerations
// without piling up duplicates of what the pod already tolerates.
import type { Toleration } from '../../api/core.ts';

const opEqual = 'Equal';
const opExists = 'Exists';
const effectNoExecute = 'NoExecute';

/** apiequality.Semantic.DeepEqual on two tolerations: absent and empty fields are the same. */
export function tolerationsEqual(a: Toleration, b: Toleration): boolean {
  return (
    (a.key ?? '') === (b.key ?? '') &&
    (a.operator ?? '') === (b.operator ?? '') &&
    (a.value ?? '') === (b.value ?? '') &&
    (a.effect ?? '') === (b.effect ?? '') &&
    (a.tolerationSeconds ?? undefined) === (b.tolerationSeconds ?? undefined)
  );
}

/** Whether `broad` tolerates every taint that `narrow` tolerates. */
export function isSuperset(broad: Toleration, narrow: Toleration): boolean {
  if (tolerationsEqual(broad, narrow)) return true;
  const broadKey = broad.key ?? '';
  const broadOperator = broad.operator ?? '';
  const broadEffect = broad.effect ?? '';
  // An empty key with Exists matches every key and value.
  if ((narrow.key ?? '') !== broadKey && (broadKey !== '' || broadOperator !== opExists)) return false;
  // An empty effect matches every effect.
  if ((narrow.effect ?? '') !== broadEffect && broadEffect !== '') return false;
  if (broadEffect === effectNoExecute && broad.tolerationSeconds != null) {
    if (narrow.tolerationSeconds == null || narrow.tolerationSeconds > broad.tolerationSeconds) return false;
  }
  switch (broadOperator) {
    case opEqual:
    case '': // an empty operator means Equal
      return narrow.operator === opEqual && (narrow.value ?? '') === (broad.value ?? '');
    case opExists:
      return true;
    default:
      return false;
  }
}

/**
 * first ++ second without redundant entries: a toleration is dropped when one already kept covers
 * it, or when a later, different one does; of equal tolerations the first is kept.
 *
 * Upstream compares every toleration with every other (quadratic: 40,000 tolerations in a 3 MiB
 * pod would be 1.6 billion comparisons). The same answer comes from looking only where a cover can
 * be: isSuperset(broad, narrow) holds only for an equal toleration, an Exists with narrow's key (or
 * no key), or an Equal with narrow's key and value when narrow is an Equal — each with narrow's
 * effect or none. Within such a group the only remaining condition is NoExecute's
 * tolerationSeconds, so each group keeps the best limit among tolerations kept so far, and the best
 * limits among later ones of two different equality classes (a later cover must not equal narrow).
 */
export function mergeTolerations(first: readonly Toleration[], second: readonly Toleration[]): Toleration[] {
  const all = [...first, ...second];
  const classes = all.map(equalityClass);
  // Later covers, from the end: per group, the two best limits of different equality classes.
  const later = new CoverTable<BestTwo>();
  const coveredLater: boolean[] = new Array(all.length);
  for (let i = all.length - 1; i >= 0; i--) {
    const t = all[i]!;
    const needed = secondsOf(t);
    coveredLater[i] = later.someCover(t, (best) => bestExcluding(best, classes[i]!) >= needed);
    later.update(t, (best) => offer(best, classes[i]!, limitOf(t)));
  }
  // Kept covers, from the start: per group, the best limit kept so far; and the classes kept.
  const kept = new CoverTable<number>();
  const keptClasses = new Set<string>();
  const merged: Toleration[] = [];
  all.forEach((t, i) => {
    const needed = secondsOf(t);
    if (keptClasses.has(classes[i]!) || kept.someCover(t, (limit) => limit >= needed)) return;
    if (coveredLater[i]) return;
    merged.push(t);
    keptClasses.add(classes[i]!);
    kept.update(t, (limit) => Math.max(limit ?? -1, limitOf(t)));
  });
  return merged;
}

/**
 * A value per cover group: Exists tolerations by key and effect, Equal ones (and those with no
 * operator) by key, effect and value. Other operators cover only what equals them.
 */
class CoverTable<V> {
  readonly #exists = new Map<string, Map<string, V>>();
  readonly #equal = new Map<string, Map<string, Map<string, V>>>();

  /** Whether test holds for the value of a group where a cover of t can sit. */
  someCover(t: Toleration, test: (value: V) => boolean): boolean {
    const key = t.key ?? '';
    const effect = t.effect ?? '';
    const holds = (value: V | undefined) => value !== undefined && test(value);
    for (const k of key === '' ? [''] : [key, '']) {
      const byEffect = this.#exists.get(k);
      if (byEffect !== undefined && (holds(byEffect.get(effect)) || (effect !== '' && holds(byEffect.get(''))))) return true;
    }
    if (t.operator !== opEqual) return false;
    const byEffect = this.#equal.get(key);
    if (byEffect === undefined) return false;
    const value = t.value ?? '';
    return holds(byEffect.get(effect)?.get(value)) || (effect !== '' && holds(byEffect.get('')?.get(value)));
  }

  /** Sets the value of the group t covers from (none for an odd operator). */
  update(t: Toleration, next: (value: V | undefined) => V): void {
    const key = t.key ?? '';
    const effect = t.effect ?? '';
    switch (t.operator ?? '') {
      case opExists: {
        const byEffect = getOrSet(this.#exists, key, () => new Map<string, V>());
        byEffect.set(effect, next(byEffect.get(effect)));
        break;
      }
      case opEqual:
      case '': {
        const byValue = getOrSet(getOrSet(this.#equal, key, () => new Map<string, Map<string, V>>()), effect, () => new Map<string, V>());
        const value = t.value ?? '';
        byValue.set(value, next(byValue.get(value)));
        break;
      }
    }
  }
}

function getOrSet<K, V>(map: Map<K, V>, key: K, create: () => V): V {
  let value = map.get(key);
  if (value === undefined) map.set(key, (value = create()));
  return value;
}

interface BestTwo {
  best: number;
  bestClass: string;
  other: number;
}

/** Equal tolerations (tolerationsEqual) share a class. */
function equalityClass(t: Toleration): string {
  return [t.key ?? '', t.operator ?? '', t.value ?? '', t.effect ?? '', String(t.tolerationSeconds ?? '')].map((part) => `${part.length}:${part}`).join('');
}

/** The most seconds a toleration covers: unlimited unless it is a NoExecute with tolerationSeconds. */
function limitOf(t: Toleration): number {
  return (t.effect ?? '') === effectNoExecute && t.tolerationSeconds != null ? t.tolerationSeconds : Number.POSITIVE_INFINITY;
}

/** What a cover's limit must reach: a toleration with no tolerationSeconds needs an unlimited cover. */
function secondsOf(t: Toleration): number {
  return t.tolerationSeconds ?? Number.POSITIVE_INFINITY;
}

/** The two best limits of a group, the second from another class than the first. */
function offer(current: BestTwo | undefined, cls: string, limit: number): BestTwo {
  if (current === undefined) return { best: limit, bestClass: cls, other: -1 };
  if (current.bestClass === cls) current.best = Math.max(current.best, limit);
  else if (limit > current.best) Object.assign(current, { other: current.best, best: limit, bestClass: cls });
  else current.other = Math.max(current.other, limit);
  return current;
}

function bestExcluding(best: BestTwo, cls: string): number {
  return best.bestClass === cls ? best.other : best.best;
}
