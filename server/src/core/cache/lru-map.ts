export interface LruMapOptions<Value> {
  /** The most total weight kept; default: no bound. */
  maxWeight?: number;
  /** An entry's weight; default 0. */
  weigh?: (value: Value) => number;
  /**
   * Keep a key's value only when it is set a second time while the key is still remembered
   * (up to `limit` keys set once, oldest forgotten first): a scan that sets every key once
   * then neither evicts the entries in use nor keeps values it will not read again.
   */
  admitOnRepeat?: boolean;
}

/**
 * A Map bounded to `limit` entries, and optionally to a total weight (say, an estimate of their
 * bytes), that forgets the least recently used entries first. A Map keeps insertion order, so a
 * hit moves its entry to the end and the first key is the oldest: a few lines, where a library
 * (lru-cache) would add TTLs and fetch hooks nothing here needs.
 */
export class LruMap<Key, Value> {
  private readonly entries = new Map<Key, { value: Value; weight: number }>();
  /** With `admitOnRepeat`: the keys set once and not yet kept, oldest first. */
  private readonly setOnce: Map<Key, true> | null;
  private readonly limit: number;
  private readonly maxWeight: number;
  private readonly weigh: (value: Value) => number;
  private weight = 0;

  constructor(limit: number, options: LruMapOptions<Value> = {}) {
    this.limit = limit;
    this.maxWeight = options.maxWeight ?? Number.POSITIVE_INFINITY;
    this.weigh = options.weigh ?? (() => 0);
    this.setOnce = options.admitOnRepeat ? new Map() : null;
  }

  get(key: Key): Value | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  /**
   * Stores `value` as the newest entry and answers whether it is kept: one heavier than the whole
   * bound is not, nor, with `admitOnRepeat`, the first value of a key not remembered.
   */
  set(key: Key, value: Value): boolean {
    const kept = this.entries.has(key);
    this.delete(key);
    if (!kept && this.setOnce !== null && !this.setOnce.delete(key)) {
      this.setOnce.set(key, true);
      if (this.setOnce.size > this.limit) this.setOnce.delete(this.setOnce.keys().next().value as Key);
      return false;
    }
    const weight = this.weigh(value);
    if (weight > this.maxWeight) return false;
    this.entries.set(key, { value, weight });
    this.weight += weight;
    while (this.entries.size > this.limit || this.weight > this.maxWeight) {
      this.delete(this.entries.keys().next().value as Key);
    }
    return this.entries.has(key);
  }

  delete(key: Key): void {
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    this.entries.delete(key);
    this.weight -= entry.weight;
  }

  get size(): number {
    return this.entries.size;
  }
}
