import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LruMap } from "../../../src/core/cache/lru-map.ts";

describe("LruMap", () => {
  it("forgets the least recently used entry beyond its limit", () => {
    const map = new LruMap<string, number>(2);
    map.set("a", 1);
    map.set("b", 2);
    expect(map.get("a")).toBe(1); // a is now the newest
    map.set("c", 3);
    expect(map.get("b")).toBeUndefined();
    expect([map.get("a"), map.get("c"), map.size]).toEqual([1, 3, 2]);
  });

  it("keeps the total weight under its bound, and never keeps an entry heavier than it", () => {
    const map = new LruMap<string, string>(10, { maxWeight: 10, weigh: (value) => value.length });
    map.set("a", "aaaa");
    map.set("b", "bbbb");
    map.set("c", "cccc"); // 12 > 10: a goes
    expect([map.get("a"), map.get("b"), map.get("c")]).toEqual([undefined, "bbbb", "cccc"]);
    map.set("b", "b"); // replacing an entry replaces its weight
    map.set("d", "dddd");
    expect([map.get("b"), map.get("c"), map.get("d")]).toEqual(["b", "cccc", "dddd"]);
    map.set("huge", "h".repeat(11));
    expect(map.get("huge")).toBeUndefined();
    expect(map.size).toBe(3);
  });
});

describe("LruMap with admitOnRepeat", () => {
  it("keeps a key's value from its second set on", () => {
    const map = new LruMap<string, number>(4, { admitOnRepeat: true });
    expect(map.set("a", 1)).toBe(false);
    expect(map.get("a")).toBeUndefined();
    expect(map.set("a", 2)).toBe(true);
    expect(map.get("a")).toBe(2);
    expect(map.set("a", 3)).toBe(true); // a kept key is replaced at once
    expect([map.get("a"), map.size]).toEqual([3, 1]);
  });

  it("forgets the oldest key set once beyond its limit, so it must be set twice again", () => {
    const map = new LruMap<string, number>(2, { admitOnRepeat: true });
    map.set("a", 1);
    map.set("b", 1);
    map.set("c", 1); // a is forgotten
    expect(map.set("a", 2)).toBe(false);
    expect(map.set("c", 2)).toBe(true);
  });

  it("is not emptied by a scan of keys set once, whatever the scan", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 0, max: 40 }), { minLength: 1, maxLength: 8 }),
        fc.array(fc.integer({ min: 100, max: 10_000 }), { maxLength: 200 }),
        (used, scan) => {
          const map = new LruMap<number, number>(8, { admitOnRepeat: true });
          for (const key of used) map.set(key, key);
          for (const key of used) expect(map.set(key, key)).toBe(true);
          // Each scanned key set once: none kept, none of the used ones forgotten.
          for (const key of new Set(scan)) expect(map.set(key, -key)).toBe(false);
          expect(used.map((key) => map.get(key))).toEqual(used);
          expect(map.size).toBe(used.length);
        },
      ),
    );
  });
});
