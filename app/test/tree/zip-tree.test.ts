import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { deflateRawSync } from "node:zlib";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { sha256 } from "../../src/hash/sha256.ts";
import { DeflateCache } from "../../src/tree/deflate-cache.ts";
import { type FileTree, isIgnoredPath, memoryTree, openZipTree, zipTree } from "../../src/tree/index.ts";

async function contents(tree: FileTree): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const path of tree.paths()) out[path] = Buffer.from(await tree.read(path)).toString("base64");
  return out;
}

/** Safe file sets: 1 to 3 segments, no "." or "..", no two paths equal after NFC, no file under a file. */
const safeFiles = fc
  .uniqueArray(
    fc.tuple(
      fc.array(fc.stringMatching(/^(?:[a-zA-Z0-9 ._~é漢\u{1F600}-]|e\u0301){1,6}$/u), {
        minLength: 1,
        maxLength: 3,
      }),
      fc.oneof(fc.uint8Array({ maxLength: 300 }), fc.string({ maxLength: 300 })),
    ),
    // One file per NFC form, letter case folded: trees refuse NFC and case twins alike.
    { selector: ([segments]) => segments.join("/").normalize("NFC").toLowerCase(), maxLength: 20 },
  )
  .map((entries) => {
    const safe = entries.filter(([segments]) => !segments.some((s) => s === "." || s === ".."));
    const keys = safe.map(([segments]) => segments.join("/").normalize("NFC"));
    const files: Record<string, string | Uint8Array> = {};
    for (const [segments, content] of safe) {
      const key = segments.join("/").normalize("NFC");
      if (!keys.some((other) => other.startsWith(`${key}/`))) files[segments.join("/")] = content;
    }
    return files;
  });

describe("zipTree", () => {
  it("writes byte-identical archives for the same files, whatever the insertion order", async () => {
    const first = await zipTree(memoryTree({ "b.md": "b", "a/c.json": "{}" }));
    const second = await zipTree(memoryTree({ "a/c.json": "{}", "b.md": "b" }));
    expect(first.equals(second)).toBe(true);
  });

  it("writes the archives yazl wrote before, byte for byte, so content hashes in publish states stay valid", async () => {
    // Hashes of yazl 3.3's archives of these trees (the writer zipTree replaced).
    const tree = memoryTree({
      "problem.json": '{"slug":"x"}',
      "skills/s/SKILL.md": "---\n",
      "empty.txt": "",
    });
    expect(sha256(await zipTree(tree))).toBe(
      "sha256:23f60a25917a8cc5ffb20a14d0b8066d03355ad33c22da422bc68d21352160e4",
    );
    expect(sha256(await zipTree(memoryTree({ "a.txt": "a" })))).toBe(
      "sha256:cd9b12a875b68c4b5b09bc971d6fe9a11cf429a4582bcf8ae287bddff188a6d1",
    );
  });

  it("round-trips through openZipTree with the same paths and bytes", async () => {
    const tree = memoryTree({
      "problem.json": '{"slug":"x"}',
      "skills/s/SKILL.md": "---\n",
      "empty.txt": "",
    });
    const reopened = await openZipTree(await zipTree(tree));
    expect(reopened.paths()).toEqual(tree.paths());
    expect(await contents(reopened)).toEqual(await contents(tree));
  });

  it("stamps every entry 1980-01-01 with mode 0644", async () => {
    const zip = await zipTree(memoryTree({ "a.txt": "a" }));
    // Local header: DOS time at offset 10, DOS date at 12; central header: external attributes.
    expect(zip.readUInt16LE(10)).toBe(0);
    expect(zip.readUInt16LE(12)).toBe((0 << 9) | (1 << 5) | 1);
    const central = zip.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    expect(zip.readUInt32LE(central + 38) >>> 16).toBe(0o100644);
  });

  it("round-trips arbitrary safe file sets: memoryTree -> zipTree -> openZipTree", async () => {
    await fc.assert(
      fc.asyncProperty(safeFiles, async (files) => {
        const tree = memoryTree(files);
        const reopened = await openZipTree(await zipTree(tree));
        expect(reopened.paths()).toEqual(tree.paths());
        expect(reopened.paths()).toEqual(
          Object.keys(files)
            .filter((path) => !isIgnoredPath(path))
            .sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))),
        );
        expect(await contents(reopened)).toEqual(await contents(tree));
      }),
      { numRuns: 200 },
    );
  });
});

describe("DeflateCache", () => {
  const cacheFile = () =>
    join(mkdtempSync(join(tmpdir(), "svc-deflate-cache-")), ".svc", "deflate-cache.bin");

  it("packs byte for byte what zipTree packs without it, from an empty, a partly matching or a damaged cache", async () => {
    await fc.assert(
      fc.asyncProperty(safeFiles, async (before) => {
        const file = cacheFile();
        const first = DeflateCache.load(file);
        expect(
          (await zipTree(memoryTree(before), first.deflate)).equals(await zipTree(memoryTree(before))),
        ).toBe(true);
        first.save(file);
        // A later run where some files changed, some stayed and one is new.
        const after = Object.entries(before).map(([path, content], i) => [
          path,
          i % 2 ? content : `changed ${i}`,
        ]);
        const tree = memoryTree({ ...Object.fromEntries(after), "+new.txt": "new" });
        const plain = await zipTree(tree);
        expect((await zipTree(tree, DeflateCache.load(file).deflate)).equals(plain)).toBe(true);
        writeFileSync(file, readFileSync(file).subarray(0, Math.floor(readFileSync(file).byteLength / 2)));
        expect((await zipTree(tree, DeflateCache.load(file).deflate)).equals(plain)).toBe(true);
      }),
      { numRuns: 40 },
    );
  });

  it("never uses a cached stream that does not inflate to the file's bytes", async () => {
    const file = cacheFile();
    const cache = DeflateCache.load(file);
    await zipTree(memoryTree({ "a.md": "the real statement" }), cache.deflate);
    cache.save(file);
    // Swap the stored stream for another file's (same length or not): a forged cache.
    const stored = readFileSync(file);
    const forged = deflateRawSync(Buffer.from("a forged statement!"), { level: 6 });
    const header = stored.subarray(0, stored.indexOf(10) + 1);
    const record = Buffer.alloc(36);
    stored.copy(record, 0, header.byteLength, header.byteLength + 32);
    record.writeUInt32LE(forged.byteLength, 32);
    writeFileSync(file, Buffer.concat([header, record, forged]));
    const tree = memoryTree({ "a.md": "the real statement" });
    const packed = await zipTree(tree, DeflateCache.load(file).deflate);
    expect(packed.equals(await zipTree(tree))).toBe(true);
  });
});
