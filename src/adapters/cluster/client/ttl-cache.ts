// A bounded cache whose entries expire: authorization answers go stale (roles change), so each
// entry carries its own time to live, and when the cache is full the entry used least recently
// goes first.

export interface CacheEntry<V> {
  readonly value: V;
  readonly expiresAt: number;
  readonly ttlMs: number;
}

/** An entry with its place in the cache: one object per entry, handed out as its CacheEntry view. */
interface Slot<V> extends CacheEntry<V> {
  readonly key: string;
  readonly subkey: string;
  /** The insertion count when the slot last went to the young end of the recency order. */
  stamp: number;
}

/**
 * Entries are found by a key and a subkey (two map look-ups on strings the caller already has,
 * rather than one on a string built for each look-up: a built string must be copied and hashed
 * every time, and a cache hit is otherwise cheaper than that). Callers with one key leave the
 * subkey out. A key with one subkey holds its slot directly and gets a map of its own only for a
 * second subkey: most keys have one (an identity, the wildcard probe of one user), and with a map
 * for each, a burst of new identities peaked 5–6 MiB higher.
 *
 * The recency order is a Set's insertion order: eviction takes from the old end. A hit moves its
 * entry to the young end only when the entry has drifted into the older half (more than half the
 * capacity inserted since it last moved), so a hot entry costs no reordering. Eviction order is
 * unchanged where it matters: an entry used since the last half-capacity of insertions still has
 * at least the other half ahead of it.
 */
export class TtlCache<V> {
  #index = new Map<string, Slot<V> | Map<string, Slot<V>>>();
  readonly #order = new Set<Slot<V>>();
  readonly #maxEntries: number;
  readonly #maxBytes: number;
  readonly #moveAfter: number;
  #inserted = 0;
  #bytes = 0;

  /**
   * maxBytes bounds the keys' size too (two bytes a character, as V8 may store them, plus an
   * entry's own cost): requesters control keys, and a count bound alone lets long ones add up.
   */
  constructor(maxEntries: number, maxBytes = Number.POSITIVE_INFINITY) {
    if (!(maxEntries > 0)) throw new Error(`TtlCache needs a positive size, got ${maxEntries}`);
    this.#maxEntries = maxEntries;
    this.#maxBytes = maxBytes;
    this.#moveAfter = Math.floor(maxEntries / 2);
  }

  get size(): number {
    return this.#order.size;
  }

  /** What the entries' keys and bookkeeping take, as counted against maxBytes. */
  get bytes(): number {
    return this.#bytes;
  }

  /** The live entry at time now, with its lifetime, or undefined (expired entries are dropped). */
  entry(key: string, now: number, subkey = ''): CacheEntry<V> | undefined {
    const slot = this.#slot(key, subkey);
    if (slot === undefined) return undefined;
    if (slot.expiresAt <= now) {
      this.#remove(slot);
      return undefined;
    }
    if (this.#inserted - slot.stamp >= this.#moveAfter) {
      this.#order.delete(slot);
      slot.stamp = ++this.#inserted;
      this.#order.add(slot);
    }
    return slot;
  }

  set(key: string, value: V, ttlMs: number, now: number, subkey = ''): void {
    const previous = this.#slot(key, subkey);
    if (previous !== undefined) this.#remove(previous);
    if (!(ttlMs > 0)) return;
    const slot: Slot<V> = { value, expiresAt: now + ttlMs, ttlMs, key, subkey, stamp: ++this.#inserted };
    const held = this.#index.get(key);
    if (held === undefined) this.#index.set(key, slot);
    else if (held instanceof Map) held.set(subkey, slot);
    else
      this.#index.set(
        key,
        new Map([
          [held.subkey, held],
          [subkey, slot],
        ]),
      );
    this.#order.add(slot);
    this.#bytes += slotBytes(slot);
    while (this.#order.size > this.#maxEntries || this.#bytes > this.#maxBytes) {
      const oldest = this.#order.values().next();
      if (oldest.done) break;
      this.#remove(oldest.value);
    }
  }

  clear(): void {
    this.#index = new Map();
    this.#order.clear();
    this.#bytes = 0;
  }

  #slot(key: string, subkey: string): Slot<V> | undefined {
    const held = this.#index.get(key);
    if (held instanceof Map) return held.get(subkey);
    return held?.subkey === subkey ? held : undefined;
  }

  #remove(slot: Slot<V>): void {
    if (this.#order.delete(slot)) this.#bytes -= slotBytes(slot);
    const held = this.#index.get(slot.key);
    if (held === slot) {
      this.#index.delete(slot.key);
      return;
    }
    if (!(held instanceof Map) || held.get(slot.subkey) !== slot) return;
    held.delete(slot.subkey);
    // Back to a slot held directly once one subkey is left.
    if (held.size === 1) this.#index.set(slot.key, held.values().next().value!);
  }
}

/** An entry's key and subkey at two bytes a character, and its slot, map and set entries. */
function slotBytes(slot: Slot<unknown>): number {
  return 2 * (slot.key.length + slot.subkey.length) + 160;
}
