/**
 * A Map bounded to `limit` entries, and optionally to a total weight (say, an estimate of their
 * bytes), that forgets the least recently used entries first. A Map keeps insertion order, so a
 * hit moves its entry to the end and the first key is the oldest: a few lines, where a library
 * (lru-cache) would add TTLs and fetch hooks nothing here needs.
 */
export class LruMap<Key, Value> {
  private readonly entries = new Map<Key, { value: Value; weight: number }>();
  private readonly limit: number;
  private readonly maxWeight: number;
  private readonly weigh: (value: Value) => number;
  private weight = 0;

  constructor(limit: number, options: { maxWeight?: number; weigh?: (value: Value) => number } = {}) {
    this.limit = limit;
    this.maxWeight = options.maxWeight ?? Number.POSITIVE_INFINITY;
    this.weigh = options.weigh ?? (() => 0);
  }

  get(key: Key): Value | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  /** Stores `value` as the newest entry; one heavier than the whole bound is not kept. */
  set(key: Key, value: Value): void {
    this.delete(key);
    const weight = this.weigh(value);
    if (weight > this.maxWeight) return;
    this.entries.set(key, { value, weight });
    this.weight += weight;
    while (this.entries.size > this.limit || this.weight > this.maxWeight) {
      this.delete(this.entries.keys().next().value as Key);
    }
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
