import { describe, expect, it } from "vitest";
import { escapedText } from "../../src/tree/bidi-control.ts";
import { memoryTree } from "../../src/tree/index.ts";

describe("memoryTree", () => {
  it("lists files in UTF-8 byte order and drops .svc/ and .git", () => {
    // U+FF5E sorts before U+1F600 in UTF-8, though not in UTF-16 code units.
    const tree = memoryTree({
      "\u{1F600}.md": "",
      "\uFF5E.md": "",
      "b.md": "",
      ".svc/x": "",
      "a/.git/HEAD": "",
    });
    expect(tree.paths()).toEqual(["b.md", "\uFF5E.md", "\u{1F600}.md"]);
  });

  it("encodes strings as UTF-8 and copies bytes so the caller cannot change the tree", async () => {
    const bytes = new Uint8Array([1, 2, 3]);
    const tree = memoryTree({ "s.txt": "é", "b.bin": bytes });
    bytes[0] = 9;
    expect(tree.size("s.txt")).toBe(2);
    expect([...(await tree.read("b.bin"))]).toEqual([1, 2, 3]);
    (await tree.read("b.bin"))[0] = 7;
    expect([...(await tree.read("b.bin"))]).toEqual([1, 2, 3]);
  });

  it("rejects reads of unlisted paths with not_found", async () => {
    await expect(memoryTree({}).read("missing.md")).rejects.toMatchObject({ code: "not_found" });
    expect(memoryTree({}).size("missing.md")).toBeUndefined();
  });

  it.each(["../x", "/x", "C:x", "a\\b", "a//b", "./a", "a/", "", "a\u0000b", "a\u202eb", ".svc/../x"])(
    "refuses the unsafe path %j with unsafe_path",
    (path) => {
      // The entry is named escaped: a NUL or a bidirectional control is shown as its \u escape (\u0000, \u202e).
      expect(() => memoryTree({ [path]: "" })).toThrow(
        expect.objectContaining({ code: "unsafe_path", entry: escapedText(path) }),
      );
    },
  );

  it("refuses a path that is both a file and a folder with duplicate_entry", () => {
    expect(() => memoryTree({ "a/b": "", a: "" })).toThrow(
      expect.objectContaining({ code: "duplicate_entry" }),
    );
  });
});
