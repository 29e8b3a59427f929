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
    map.set("a", "xxxx");
    map.set("b", "yyyy");
    map.set("c", "zzzz"); // 12 > 10: a goes
    expect([map.get("a"), map.get("b"), map.get("c")]).toEqual([undefined, "yyyy", "zzzz"]);
    map.set("b", "y"); // replacing an entry replaces its weight
    map.set("d", "wwww");
    expect([map.get("b"), map.get("c"), map.get("d")]).toEqual(["y", "zzzz", "wwww"]);
    map.set("huge", "x".repeat(11));
    expect(map.get("huge")).toBeUndefined();
    expect(map.size).toBe(3);
  });
});
