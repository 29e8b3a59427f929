import { memoryTree } from "@svc/app";
import { describe, expect, it } from "vitest";
import { validatedTrees } from "../../src/authoring/validated-trees.ts";

/** A tree of one file of `size` bytes. */
const treeOf = async (size: number) => memoryTree({ "a.bin": new Uint8Array(size) });

describe("validatedTrees", () => {
  it("hands a validated tree to the one publication that takes it", async () => {
    const trees = validatedTrees();
    const tree = await treeOf(3);
    trees.remember("sha256:a", tree);
    expect(trees.take("sha256:a")).toBe(tree);
    expect(trees.take("sha256:a")).toBeUndefined();
    expect(trees.take("sha256:b")).toBeUndefined();
  });

  it("keeps the newest trees within its byte budget and never one over it", async () => {
    const trees = validatedTrees({ maxBytes: 10 });
    trees.remember("sha256:old", await treeOf(6));
    trees.remember("sha256:new", await treeOf(4));
    trees.remember("sha256:newer", await treeOf(5));
    trees.remember("sha256:huge", await treeOf(11));
    expect(trees.take("sha256:old")).toBeUndefined();
    expect(trees.take("sha256:huge")).toBeUndefined();
    expect(trees.take("sha256:new")).toBeDefined();
    expect(trees.take("sha256:newer")).toBeDefined();
  });

  it("lets a tree go after its time", async () => {
    const trees = validatedTrees({ ttlMs: 5 });
    trees.remember("sha256:a", await treeOf(1));
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(trees.take("sha256:a")).toBeUndefined();
  });
});
