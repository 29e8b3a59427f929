import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LintContext } from "../../src/lint/lint-context.ts";
import type { FileTree } from "../../src/tree/file-tree.ts";

/** A tree that only lists `paths`: `under` reads nothing else. */
const listing = (paths: string[]): FileTree => ({
  paths: () => paths,
  size: () => undefined,
  read: async () => new Uint8Array(),
});

describe("LintContext.under", () => {
  it("lists the paths under a prefix in byte order, ASCII only or not", () => {
    const unit = fc.constantFrom("a", "b", "/", ".", "\uFFFD", "\u{10000}", "é");
    const path = fc.string({ unit, maxLength: 5 });
    fc.assert(
      fc.property(fc.uniqueArray(path, { maxLength: 12 }), path, (paths, prefix) => {
        const ctx = new LintContext(listing(paths), new Date(0));
        const expected = ctx.paths.filter((p) => p.startsWith(prefix));
        expect(ctx.under(prefix)).toEqual(expected);
      }),
    );
  });
});
