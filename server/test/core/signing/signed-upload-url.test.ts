import { createHash } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ContentHash } from "@svc/app";
import { BlobRefusalCode } from "@svc/schemas";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  BlobRefusedError,
  InvalidContentHashError,
  openLocalBlobStore,
} from "../../../src/core/blobs/index.ts";
import { signUploadUrl, verifySignedUploadPath } from "../../../src/core/signing/signed-upload-url.ts";
import { SignedUrlFailure, signUrl, verifySignedPath } from "../../../src/core/signing/signed-url.ts";

const SECRET = "a test secret of at least thirty-two bytes";
const NOW = new Date("2026-11-22T10:00:00Z");
const EXPIRES = new Date("2026-11-22T10:15:00Z");
const BYTES = new TextEncoder().encode("the package archive");
const HASH: ContentHash = `sha256:${createHash("sha256").update(BYTES).digest("hex")}`;
const UPLOAD = { target: "upload:upl_1", expiresAt: EXPIRES, maxBytes: BYTES.byteLength, contentHash: HASH };

describe("signUploadUrl and verifySignedUploadPath", () => {
  it("round-trips the target, expiry, maximum size and content hash", () => {
    const path = signUploadUrl(UPLOAD, SECRET);
    expect(path).toMatch(/^\/up\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    expect(verifySignedUploadPath(path, SECRET, NOW)).toEqual({ ok: true, ...UPLOAD });
  });

  it("is expired exactly at expiresAt", () => {
    const path = signUploadUrl(UPLOAD, SECRET);
    expect(verifySignedUploadPath(path, SECRET, new Date(EXPIRES.getTime() - 1)).ok).toBe(true);
    expect(verifySignedUploadPath(path, SECRET, EXPIRES)).toEqual({
      ok: false,
      reason: SignedUrlFailure.expired,
    });
  });

  it("rejects any single-byte tamper, so neither the size nor the hash can be changed (property)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 40 }),
        fc.nat(),
        fc.integer({ min: 0, max: 255 }),
        (maxBytes, position, byte) => {
          const path = signUploadUrl({ ...UPLOAD, maxBytes }, SECRET);
          const bytes = Buffer.from(path, "latin1");
          const i = position % bytes.length;
          fc.pre(bytes[i] !== byte);
          bytes[i] = byte;
          expect(verifySignedUploadPath(bytes.toString("latin1"), SECRET, NOW).ok).toBe(false);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it("never accepts a download URL as an upload URL, nor an upload URL as a download URL", () => {
    const download = signUrl({ target: UPLOAD.target, expiresAt: EXPIRES }, SECRET);
    const upload = signUploadUrl(UPLOAD, SECRET);
    expect(verifySignedUploadPath(download.replace("/dl/", "/up/"), SECRET, NOW)).toEqual({
      ok: false,
      reason: SignedUrlFailure.bad_signature,
    });
    expect(verifySignedPath(upload.replace("/up/", "/dl/"), SECRET, NOW)).toEqual({
      ok: false,
      reason: SignedUrlFailure.bad_signature,
    });
  });

  it("refuses to sign a malformed content hash or a negative maximum size", () => {
    const upper = HASH.toUpperCase().replace("SHA256", "sha256") as ContentHash;
    expect(() => signUploadUrl({ ...UPLOAD, contentHash: upper }, SECRET)).toThrow(InvalidContentHashError);
    expect(() => signUploadUrl({ ...UPLOAD, maxBytes: -1 }, SECRET)).toThrow(RangeError);
    expect(() => signUploadUrl({ ...UPLOAD, maxBytes: 1.5 }, SECRET)).toThrow(RangeError);
  });

  it("gives a PUT route the limits that make the blob store refuse anything but the declared bytes", async () => {
    const root = await mkdtemp(join(tmpdir(), "svc-upload-"));
    try {
      const store = openLocalBlobStore(root);
      // 1. The service signs an upload for the declared hash and size.
      const verified = verifySignedUploadPath(signUploadUrl(UPLOAD, SECRET), SECRET, NOW);
      if (!verified.ok) throw new Error(verified.reason);
      const limits = { expectedHash: verified.contentHash, maxBytes: verified.maxBytes };
      // 2. Other bytes of the same length are refused for their hash.
      const other = new TextEncoder().encode("THE PACKAGE ARCHIVE");
      await expect(store.put(other, limits)).rejects.toMatchObject({
        refusal: { code: BlobRefusalCode.hash_mismatch },
      });
      // 3. Longer bytes are refused for their size.
      const longer = new TextEncoder().encode("the package archive, and more");
      await expect(store.put(longer, limits)).rejects.toBeInstanceOf(BlobRefusedError);
      // 4. The declared bytes are stored.
      expect(await store.put(BYTES, limits)).toEqual({ content_hash: HASH, size_bytes: BYTES.byteLength });
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
