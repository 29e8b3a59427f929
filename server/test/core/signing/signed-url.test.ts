import { createHmac } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  SIGNED_URL_TTL_SECONDS,
  SignedUrlFailure,
  signedUrlExpiry,
  signUrl,
  verifySignedPath,
} from "../../../src/core/signing/signed-url.ts";

const SECRET = "a test secret of at least thirty-two bytes";
const OTHER_SECRET = "another secret of at least thirty-two bytes";
const NOW = new Date("2026-11-22T10:00:00Z");
const EXPIRES = new Date("2026-11-22T10:15:00Z");
const TARGET = `blob:sha256:${"ab".repeat(32)}`;
const BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

const at = (date: Date, deltaMs: number) => new Date(date.getTime() + deltaMs);

describe("signUrl and verifySignedPath", () => {
  it("round-trips: a path it signs verifies to the same target and expiry", () => {
    const path = signUrl({ target: TARGET, expiresAt: EXPIRES }, SECRET);
    expect(path).toMatch(/^\/dl\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    expect(verifySignedPath(path, SECRET, NOW)).toEqual({ ok: true, target: TARGET, expiresAt: EXPIRES });
  });

  it("carries the base64url of the compact JSON {t, e} with the expiry in epoch seconds", () => {
    const path = signUrl({ target: "artifact:art_1", expiresAt: EXPIRES }, SECRET);
    const payload = path.slice("/dl/".length).split(".")[0]!;
    expect(Buffer.from(payload, "base64url").toString("utf8")).toBe(
      `{"t":"artifact:art_1","e":${EXPIRES.getTime() / 1000}}`,
    );
  });

  it("signs with HMAC-SHA256 of `svc.dl.v1.<payload>` under the secret's bytes, with either form of the secret", () => {
    for (const secret of [SECRET, OTHER_SECRET, Buffer.from(SECRET, "utf8")]) {
      const [payload, signature] = signUrl({ target: TARGET, expiresAt: EXPIRES }, secret)
        .slice("/dl/".length)
        .split(".");
      const expected = createHmac("sha256", Buffer.from(secret))
        .update(`svc.dl.v1.${payload}`)
        .digest("base64url");
      expect(signature).toBe(expected);
    }
  });

  it("is valid up to the last millisecond and expired exactly at expiresAt and after", () => {
    const path = signUrl({ target: TARGET, expiresAt: EXPIRES }, SECRET);
    expect(verifySignedPath(path, SECRET, at(EXPIRES, -1)).ok).toBe(true);
    expect(verifySignedPath(path, SECRET, EXPIRES)).toEqual({ ok: false, reason: SignedUrlFailure.expired });
    expect(verifySignedPath(path, SECRET, at(EXPIRES, 86_400_000))).toEqual({
      ok: false,
      reason: SignedUrlFailure.expired,
    });
  });

  it("rounds a fractional expiry down, so a URL never outlives the expires_at it was given", () => {
    const path = signUrl({ target: TARGET, expiresAt: at(EXPIRES, 999) }, SECRET);
    expect(verifySignedPath(path, SECRET, EXPIRES).ok).toBe(false);
  });

  it("defaults to 15 minutes in whole seconds from the injected clock", () => {
    expect(SIGNED_URL_TTL_SECONDS).toBe(900);
    expect(signedUrlExpiry(at(NOW, 750))).toEqual(EXPIRES);
    expect(signedUrlExpiry(NOW, 60)).toEqual(at(NOW, 60_000));
  });

  it("rejects every single-character change of the payload and of the signature", () => {
    const path = signUrl({ target: TARGET, expiresAt: EXPIRES }, SECRET);
    const replacements = `${BASE64URL}.=/+%~ \u00e9`;
    for (let i = 0; i < path.length; i += 1) {
      for (const c of replacements) {
        if (c === path[i]) continue;
        const tampered = path.slice(0, i) + c + path.slice(i + 1);
        expect(verifySignedPath(tampered, SECRET, NOW).ok, `${i}: ${c}`).toBe(false);
      }
    }
  });

  it("rejects any single-byte tamper of any signed path (property)", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary", minLength: 1, maxLength: 120 }),
        fc.nat(),
        fc.integer({ min: 0, max: 255 }),
        (target, position, byte) => {
          const path = signUrl({ target, expiresAt: EXPIRES }, SECRET);
          const bytes = Buffer.from(path, "latin1");
          const i = position % bytes.length;
          fc.pre(bytes[i] !== byte);
          bytes[i] = byte;
          expect(verifySignedPath(bytes.toString("latin1"), SECRET, NOW).ok).toBe(false);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("never verifies a signature made for one target with the payload of another (property)", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary", minLength: 1, maxLength: 80 }),
        fc.string({ unit: "binary", minLength: 1, maxLength: 80 }),
        (a, b) => {
          fc.pre(a !== b);
          const [, signatureOfA] = signUrl({ target: a, expiresAt: EXPIRES }, SECRET).split(".");
          const [payloadOfB] = signUrl({ target: b, expiresAt: EXPIRES }, SECRET).split(".");
          expect(verifySignedPath(`${payloadOfB}.${signatureOfA}`, SECRET, NOW)).toEqual({
            ok: false,
            reason: SignedUrlFailure.bad_signature,
          });
        },
      ),
    );
  });

  it("keeps each target's own expiry: a later expiry cannot be spliced onto an earlier signature", () => {
    const [, signature] = signUrl({ target: TARGET, expiresAt: EXPIRES }, SECRET).split(".");
    const [later] = signUrl({ target: TARGET, expiresAt: at(EXPIRES, 3_600_000) }, SECRET).split(".");
    expect(verifySignedPath(`${later}.${signature}`, SECRET, NOW).ok).toBe(false);
  });

  it("refuses a path signed with another secret", () => {
    const path = signUrl({ target: TARGET, expiresAt: EXPIRES }, OTHER_SECRET);
    expect(verifySignedPath(path, SECRET, NOW)).toEqual({
      ok: false,
      reason: SignedUrlFailure.bad_signature,
    });
  });

  it("reports a bad signature rather than expiry for a forged path that is also expired", () => {
    const path = signUrl({ target: TARGET, expiresAt: EXPIRES }, OTHER_SECRET);
    expect(verifySignedPath(path, SECRET, at(EXPIRES, 1))).toEqual({
      ok: false,
      reason: SignedUrlFailure.bad_signature,
    });
  });

  it.each([
    ["the bare prefix", "/dl/"],
    ["no dot", "/dl/eyJ0IjoiYSIsImUiOjF9"],
    ["two dots", `/dl/eyJ0IjoiYSIsImUiOjF9.${"A".repeat(43)}.x`],
    ["an empty payload", `/dl/.${"A".repeat(43)}`],
    ["an empty signature", "/dl/eyJ0IjoiYSIsImUiOjF9."],
    ["characters outside base64url", `/dl/eyJ0Ijoi+SIsImUiOjF9.${"A".repeat(43)}`],
    ["base64 padding", `/dl/eyJ0IjoiYSIsImUiOjF9==.${"A".repeat(43)}`],
    ["a payload length no base64 has", `/dl/eyJ0I.${"A".repeat(43)}`],
    ["a signature of the wrong length", "/dl/eyJ0IjoiYSIsImUiOjF9.AAAA"],
    ["another prefix", `/up/eyJ0IjoiYSIsImUiOjF9.${"A".repeat(43)}`],
    ["no prefix", `eyJ0IjoiYSIsImUiOjF9.${"A".repeat(43)}`],
    ["an enormous payload", `/dl/${"A".repeat(20_000)}.${"A".repeat(43)}`],
  ])("calls a path with %s malformed", (_, path) => {
    expect(verifySignedPath(path, SECRET, NOW)).toEqual({ ok: false, reason: SignedUrlFailure.malformed });
  });

  it("refuses to sign an empty or overlong target, an invalid date, or with a short secret", () => {
    expect(() => signUrl({ target: "", expiresAt: EXPIRES }, SECRET)).toThrow(TypeError);
    expect(() => signUrl({ target: "x".repeat(1025), expiresAt: EXPIRES }, SECRET)).toThrow(TypeError);
    expect(() => signUrl({ target: TARGET, expiresAt: new Date(Number.NaN) }, SECRET)).toThrow(TypeError);
    expect(() => signUrl({ target: TARGET, expiresAt: EXPIRES }, "short")).toThrow(RangeError);
    expect(() => verifySignedPath("/dl/a.b", "short", NOW)).toThrow(RangeError);
  });

  it("accepts a secret given as bytes and signs the same as its UTF-8 text", () => {
    const fromText = signUrl({ target: TARGET, expiresAt: EXPIRES }, SECRET);
    const fromBytes = signUrl({ target: TARGET, expiresAt: EXPIRES }, new TextEncoder().encode(SECRET));
    expect(fromBytes).toBe(fromText);
  });
});
