import { describe, expect, it } from "vitest";
import type { FileTree } from "../../src/tree/file-tree.ts";
import { readOnceTree } from "../../src/tree/read-once-tree.ts";

/** A tree whose files change at every read, counting the reads. */
function changingTree(): FileTree & { reads: number } {
  const counted = {
    reads: 0,
    paths: () => ["a.md"],
    size: (path: string) => (path === "a.md" ? 1 : undefined),
    read: async () => new Uint8Array([++counted.reads]),
  };
  return counted;
}

describe("readOnceTree", () => {
  it("reads each file from its source once and gives the same bytes after", async () => {
    const source = changingTree();
    const tree = readOnceTree(source);
    expect(tree.paths()).toEqual(["a.md"]);
    expect(tree.size("a.md")).toBe(1);
    expect([...(await tree.read("a.md"))]).toEqual([1]);
    expect([...(await tree.read("a.md"))]).toEqual([1]);
    expect(source.reads).toBe(1);
  });

  it("hands out copies, so a reader changing its bytes changes nothing for the next", async () => {
    const tree = readOnceTree(changingTree());
    (await tree.read("a.md"))[0] = 99;
    expect([...(await tree.read("a.md"))]).toEqual([1]);
  });
});
