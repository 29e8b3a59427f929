import { createHash, randomBytes, randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { buffer } from "node:stream/consumers";
import { BlobRefusalCode } from "@svc/schemas";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  BlobRefusedError,
  type BlobStore,
  blobPath,
  InvalidContentHashError,
  openLocalBlobStore,
} from "../../../src/core/blobs/index.ts";
import { openS3BlobStore } from "../../../src/core/blobs/open-s3-blob-store.ts";
import { type LocalS3Server, startLocalS3Server } from "../../support/local-s3-server.ts";

/**
 * The blob store contract, run against both stores the service can be configured with: the local
 * directory and S3-compatible object storage (s3rver, a local server speaking the S3 protocol).
 * Each test gets a fresh store; `storedKeys` lists everything it keeps, temporary files included,
 * as `sha256/<aa>/<bb>/<hex>` and `tmp/...` names, so "keeps nothing" means the same on both.
 */
interface StoreUnderTest {
  store: BlobStore;
  storedKeys(): Promise<string[]>;
  /** Reads a blob's bytes straight from the backing storage, not through the store. */
  readRaw(hash: string): Promise<Buffer>;
}

let s3: LocalS3Server;
beforeAll(async () => {
  s3 = await startLocalS3Server();
});
const localRoots: string[] = [];
afterAll(async () => {
  await s3?.close();
  for (const root of localRoots) await rm(root, { recursive: true, force: true });
});

const BACKENDS: [string, () => Promise<StoreUnderTest>][] = [
  [
    "local directory",
    async () => {
      const root = await mkdtemp(join(tmpdir(), "svc-blobs-"));
      localRoots.push(root);
      return {
        store: openLocalBlobStore(root),
        storedKeys: () => filesUnder(root),
        readRaw: (hash) => readFile(blobPath(root, hash)),
      };
    },
  ],
  [
    "S3-compatible object storage",
    async () => {
      const prefix = `t-${randomUUID()}/`;
      const store = await openS3BlobStore(s3.settings(prefix), s3.client);
      return {
        store,
        storedKeys: () => s3.keys(prefix),
        readRaw: async (hash) => {
          const hex = hash.slice("sha256:".length);
          const stream = await store.get(hash);
          expect(
            (await s3.keys(prefix)).includes(`sha256/${hex.slice(0, 2)}/${hex.slice(2, 4)}/${hex}`),
          ).toBe(true);
          return buffer(stream!);
        },
      };
    },
  ],
];

const MiB = 1024 * 1024;

function hashOf(bytes: Uint8Array): string {
  return `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
}

/** A stream of `count` chunks of `chunkSize` random bytes that records how many chunks were read. */
function countingSource(count: number, chunkSize = 64 * 1024) {
  const chunks = Array.from({ length: count }, () => randomBytes(chunkSize));
  const state = { pulled: 0 };
  const stream = Readable.from(
    (function* () {
      for (const chunk of chunks) {
        state.pulled += 1;
        yield chunk;
      }
    })(),
    { objectMode: false, highWaterMark: chunkSize },
  );
  return { stream, bytes: Buffer.concat(chunks), state };
}

/** Every file under `dir`, relative, sorted, or [] when it does not exist. */
async function filesUnder(dir: string): Promise<string[]> {
  if (!existsSync(dir)) return [];
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .sort();
}

async function expectRefusal(promise: Promise<unknown>): Promise<BlobRefusedError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(BlobRefusedError);
  return error as BlobRefusedError;
}

describe.each(BACKENDS)("the blob store on %s", (_name, open) => {
  let store: BlobStore;
  let under: StoreUnderTest;
  beforeEach(async () => {
    under = await open();
    store = under.store;
  });

  async function expectNothingKept(): Promise<void> {
    expect(await under.storedKeys()).toEqual([]);
  }

  describe("put", () => {
    it("streams several MiB to disk and names them by the sha256 and size it computed", async () => {
      const { stream, bytes } = countingSource(80); // 5 MiB in 64 KiB chunks
      const blob = await store.put(stream);
      expect(blob).toEqual({ content_hash: hashOf(bytes), size_bytes: 5 * MiB });
      expect((await under.readRaw(blob.content_hash)).equals(bytes)).toBe(true);
    });

    it("lays a blob out at sha256/<aa>/<bb>/<hex> and keeps no temporary file", async () => {
      const blob = await store.put(new TextEncoder().encode("hello"));
      const hex = blob.content_hash.slice("sha256:".length);
      expect(await under.storedKeys()).toEqual([`sha256/${hex.slice(0, 2)}/${hex.slice(2, 4)}/${hex}`]);
    });

    it("accepts bytes in memory, async iterables and the empty blob", async () => {
      const text = new TextEncoder().encode("abc");
      async function* parts() {
        yield text.subarray(0, 1);
        yield text.subarray(1);
      }
      expect(await store.put(parts())).toEqual(await store.put(text));
      expect(await store.put(new Uint8Array())).toEqual({
        content_hash: hashOf(new Uint8Array()),
        size_bytes: 0,
      });
    });

    it("accepts a body of exactly maxBytes with the declared hash and size", async () => {
      const bytes = randomBytes(MiB);
      const blob = await store.put(bytes, { maxBytes: MiB, expectedSize: MiB, expectedHash: hashOf(bytes) });
      expect(blob.size_bytes).toBe(MiB);
    });

    it("refuses a body over maxBytes mid-stream, stops reading, and keeps neither temp file nor blob", async () => {
      const { stream, state } = countingSource(64); // 4 MiB offered
      const error = await expectRefusal(store.put(stream, { maxBytes: MiB }));
      expect(error.refusal).toMatchObject({ code: BlobRefusalCode.too_large, max_bytes: MiB });
      const received = error.refusal.code === BlobRefusalCode.too_large ? error.refusal.received_bytes : 0;
      expect(received).toBeGreaterThan(MiB);
      expect(received).toBeLessThan(2 * MiB);
      // Stopped soon after the limit (a stream reads a little ahead), well before the 64 chunks.
      expect(state.pulled).toBeLessThan(24);
      // The caller's stream is left for its owner (an HTTP route still answers on that socket).
      expect(stream.destroyed).toBe(false);
      stream.destroy();
      await expectNothingKept();
    });

    it("refuses bytes whose hash differs from the declared one, names both hashes, and keeps nothing", async () => {
      const bytes = randomBytes(3 * MiB);
      const declared = hashOf(new TextEncoder().encode("something else"));
      const error = await expectRefusal(store.put(Readable.from([bytes]), { expectedHash: declared }));
      expect(error.refusal).toEqual({
        code: BlobRefusalCode.hash_mismatch,
        expected_hash: declared,
        actual_hash: hashOf(bytes),
      });
      await expectNothingKept();
    });

    it("refuses small bytes in memory over maxBytes or with another hash, and keeps nothing", async () => {
      const bytes = randomBytes(100);
      const tooLarge = await expectRefusal(store.put(bytes, { maxBytes: 99 }));
      expect(tooLarge.refusal).toEqual({
        code: BlobRefusalCode.too_large,
        max_bytes: 99,
        received_bytes: 100,
      });
      const declared = hashOf(new TextEncoder().encode("something else"));
      const otherHash = await expectRefusal(store.put(bytes, { expectedHash: declared }));
      expect(otherHash.refusal).toEqual({
        code: BlobRefusalCode.hash_mismatch,
        expected_hash: declared,
        actual_hash: hashOf(bytes),
      });
      await expectNothingKept();
    });

    it("refuses a body shorter than the declared size at its end and keeps nothing", async () => {
      const error = await expectRefusal(store.put(randomBytes(10), { expectedSize: 11 }));
      expect(error.refusal).toEqual({
        code: BlobRefusalCode.size_mismatch,
        expected_size: 11,
        received_bytes: 10,
      });
      await expectNothingKept();
    });

    it("stops reading a body longer than the declared size and keeps nothing", async () => {
      const { stream, state } = countingSource(32);
      const error = await expectRefusal(store.put(stream, { expectedSize: 100 }));
      expect(error.refusal.code).toBe(BlobRefusalCode.size_mismatch);
      expect(state.pulled).toBeLessThan(8);
      stream.destroy();
      await expectNothingKept();
    });

    it("removes the temp file and passes on the error when the source fails", async () => {
      async function* failing() {
        yield randomBytes(1000);
        throw new Error("connection reset");
      }
      await expect(store.put(failing())).rejects.toThrow("connection reset");
      await expectNothingKept();
    });

    it("refuses a source that yields text instead of bytes", async () => {
      await expect(store.put(Readable.from(["text"]))).rejects.toThrow(TypeError);
      await expectNothingKept();
    });

    it("refuses a maxBytes or expectedSize that is not a non-negative integer before reading", async () => {
      await expect(store.put(randomBytes(1), { maxBytes: -1 })).rejects.toThrow(RangeError);
      await expect(store.put(randomBytes(1), { expectedSize: 1.5 })).rejects.toThrow(RangeError);
    });

    it("treats storing the same bytes twice as a no-op: same identity, one blob", async () => {
      const bytes = randomBytes(2 * MiB);
      const first = await store.put(bytes);
      const second = await store.put(Readable.from([bytes]));
      expect(second).toEqual(first);
      expect(await under.storedKeys()).toHaveLength(1);
    });

    it("lets concurrent puts of the same bytes all succeed and leave one whole blob", async () => {
      const bytes = randomBytes(MiB);
      const chunks = Array.from({ length: 16 }, (_, i) => bytes.subarray(i * 65536, (i + 1) * 65536));
      const results = await Promise.all(Array.from({ length: 12 }, () => store.put(Readable.from(chunks))));
      for (const result of results) expect(result).toEqual({ content_hash: hashOf(bytes), size_bytes: MiB });
      expect(await under.storedKeys()).toHaveLength(1);
      expect((await under.readRaw(hashOf(bytes))).equals(bytes)).toBe(true);
    });
  });

  describe("reads", () => {
    it("gets, stats and has a stored blob, and answers null or false for an absent one", async () => {
      const bytes = randomBytes(300_000);
      const { content_hash } = await store.put(bytes);
      const absent = hashOf(new TextEncoder().encode("absent"));

      const stream = await store.get(content_hash);
      expect(stream).not.toBeNull();
      expect((await buffer(stream!)).equals(bytes)).toBe(true);
      expect(await store.stat(content_hash)).toEqual({ size_bytes: 300_000 });
      expect(await store.has(content_hash)).toBe(true);

      expect(await store.get(absent)).toBeNull();
      expect(await store.stat(absent)).toBeNull();
      expect(await store.has(absent)).toBe(false);
    });

    it("reads back blobs of every size whole: empty, a few bytes, and either side of 256 KiB", async () => {
      // The local store reads blobs up to 256 KiB at once and streams larger ones.
      for (const size of [0, 17, 256 * 1024, 256 * 1024 + 1]) {
        const bytes = randomBytes(size);
        const { content_hash } = await store.put(bytes);
        const read = await buffer((await store.get(content_hash))!);
        expect({ size, equal: read.equals(bytes) }).toEqual({ size, equal: true });
      }
    });

    it("deletes a blob once: true the first time, false when it is already gone", async () => {
      const { content_hash } = await store.put(randomBytes(10));
      expect(await store.delete(content_hash)).toBe(true);
      expect(await store.has(content_hash)).toBe(false);
      expect(await store.delete(content_hash)).toBe(false);
    });

    it("keeps streaming a blob that was opened before it was deleted, large or small", async () => {
      for (const bytes of [randomBytes(MiB), randomBytes(100)]) {
        const { content_hash } = await store.put(bytes);
        const stream = await store.get(content_hash);
        await store.delete(content_hash);
        expect((await buffer(stream!)).equals(bytes)).toBe(true);
      }
    });
  });

  describe("hostile hashes", () => {
    it("refuses a malformed hash in every method before any I/O", async () => {
      for (const hash of ["sha256:../../etc/passwd", `sha256:${"AB".repeat(32)}`, ""]) {
        await expect(store.get(hash)).rejects.toThrow(InvalidContentHashError);
        await expect(store.has(hash)).rejects.toThrow(InvalidContentHashError);
        await expect(store.stat(hash)).rejects.toThrow(InvalidContentHashError);
        await expect(store.delete(hash)).rejects.toThrow(InvalidContentHashError);
        await expect(store.put(randomBytes(4), { expectedHash: hash })).rejects.toThrow(
          InvalidContentHashError,
        );
      }
      await expectNothingKept();
    });
  });
});

describe("openS3BlobStore", () => {
  it("stops with a message naming the bucket and the settings when the bucket cannot be used", async () => {
    const error = await openS3BlobStore({ ...s3.settings(), bucket: "no-such-bucket" }, s3.client).catch(
      (e: unknown) => e,
    );
    expect((error as Error).message).toMatch(
      /^the object store bucket no-such-bucket at http:\/\/127\.0\.0\.1:\d+ cannot be used \(.*404.*\): check SVC_S3_BUCKET, SVC_S3_ENDPOINT, SVC_S3_REGION and the AWS credentials$/,
    );
  });
});

describe("openLocalBlobStore", () => {
  it("makes its temporary and blob folders again when they were removed between puts", async () => {
    const root = await mkdtemp(join(tmpdir(), "svc-blobs-gone-"));
    try {
      const store = openLocalBlobStore(root);
      const first = await store.put(new TextEncoder().encode("first"));
      await rm(join(root, "tmp"), { recursive: true });
      await rm(join(root, "sha256"), { recursive: true });
      const second = await store.put(new TextEncoder().encode("second"));
      expect(await store.has(first.content_hash)).toBe(false);
      expect((await readFile(blobPath(root, second.content_hash))).toString()).toBe("second");
      expect(await readdir(join(root, "tmp"))).toEqual([]);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
