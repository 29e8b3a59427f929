import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { InvalidContentHashError, isContentHash, openLocalBlobStore } from "../../../src/core/blobs/index.ts";

const hex = "ab".repeat(32);
const HOSTILE = {
  traversal: "sha256:../../etc/passwd",
  "traversal padded to 64 characters": `sha256:${"../sentinel".padEnd(64, "0")}`,
  "uppercase hex": `sha256:${hex.toUpperCase()}`,
  "63 hex digits": `sha256:${hex.slice(1)}`,
  "65 hex digits": `sha256:${hex}0`,
  "another algorithm": `sha1:${hex.slice(0, 40)}`,
  "no prefix": hex,
  "a trailing newline": `sha256:${hex}\n`,
  "a leading space": ` sha256:${hex}`,
  "a NUL byte": `sha256:${hex.slice(0, 63)}\u0000`,
  "an encoded slash": `sha256:${hex.slice(0, 61)}%2f`,
  empty: "",
};

let dir: string;
let root: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "svc-blobs-hostile-"));
  // The store's root is never created: any file system access would show as ENOENT -> null/false,
  // or as a created directory, instead of the typed refusal these tests expect.
  root = join(dir, "store");
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("hostile hash strings", () => {
  it.each(Object.entries(HOSTILE))(
    "refuses %s in every method without touching the disk",
    async (_, hash) => {
      const store = openLocalBlobStore(root);
      expect(isContentHash(hash)).toBe(false);
      await expect(store.get(hash)).rejects.toThrow(InvalidContentHashError);
      await expect(store.has(hash)).rejects.toThrow(InvalidContentHashError);
      await expect(store.stat(hash)).rejects.toThrow(InvalidContentHashError);
      await expect(store.delete(hash)).rejects.toThrow(InvalidContentHashError);

      let read = false;
      const source = new Readable({
        read() {
          read = true;
          this.push(null);
        },
      });
      await expect(store.put(source, { expectedHash: hash })).rejects.toThrow(InvalidContentHashError);
      expect(read).toBe(false);
      expect(existsSync(root)).toBe(false);
    },
  );

  it("never reaches a file that a traversal through the hash would name", async () => {
    const hash = HOSTILE["traversal padded to 64 characters"];
    // Where a naive `<root>/sha256/<aa>/<bb>/<hex>` join of that string would land.
    const h = hash.slice("sha256:".length);
    const naive = join(root, "sha256", h.slice(0, 2), h.slice(2, 4), h);
    expect(naive.startsWith(dir)).toBe(true);
    await mkdir(join(naive, ".."), { recursive: true });
    await writeFile(naive, "secret");
    const store = openLocalBlobStore(root);
    await expect(store.delete(hash)).rejects.toThrow(InvalidContentHashError);
    await expect(store.get(hash)).rejects.toThrow(InvalidContentHashError);
    expect(await readFile(naive, "utf8")).toBe("secret");
  });

  it("names the offending string in the error, cut to 100 characters", () => {
    const error = new InvalidContentHashError(`sha256:${"x".repeat(500)}`);
    expect(error.code).toBe("invalid_content_hash");
    expect(error.hash).toHaveLength(100);
    expect(error.message).toContain("64 lowercase hex digits");
  });
});
