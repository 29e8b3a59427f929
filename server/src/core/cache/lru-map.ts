/**
 * A Map bounded to `limit` entries that forgets the least recently used one first. A Map keeps
 * insertion order, so a hit moves its entry to the end and the first key is the oldest: a few
 * lines, where a library (lru-cache) would add TTLs and sizes nothing here needs.
 */
export class LruMap<Key, Value> {
  private readonly entries = new Map<Key, Value>();
  private readonly limit: number;

  constructor(limit: number) {
    this.limit = limit;
  }

  get(key: Key): Value | undefined {
    const value = this.entries.get(key);
    if (value === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  set(key: Key, value: Value): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.limit) this.entries.delete(this.entries.keys().next().value as Key);
  }

  get size(): number {
    return this.entries.size;
  }
}
