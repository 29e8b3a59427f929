import { describe, expect, it } from "vitest";
import { signToken } from "../../../src/core/signing/sign-token.ts";
import { SignedUrlFailure } from "../../../src/core/signing/signed-url-failure.ts";
import { verifyToken } from "../../../src/core/signing/verify-token.ts";

const SECRET = "a test secret of at least thirty-two bytes";
const KIND = { purpose: "test.v1", keys: ["t", "e"] };
const BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

describe("verifyToken", () => {
  it("returns the claims of a token signed for the same purpose", () => {
    expect(verifyToken(signToken("test.v1", { t: "a", e: 1 }, SECRET), KIND, SECRET)).toEqual({
      ok: true,
      claims: { t: "a", e: 1 },
    });
  });

  it("refuses a token signed for another purpose", () => {
    expect(verifyToken(signToken("other.v1", { t: "a", e: 1 }, SECRET), KIND, SECRET)).toEqual({
      ok: false,
      reason: SignedUrlFailure.bad_signature,
    });
  });

  it("calls an authentic token with missing or extra claims malformed", () => {
    const shapes: Record<string, string | number>[] = [{ t: "a" }, { t: "a", e: 1, x: 2 }, { t: "a", x: 1 }];
    for (const claims of shapes) {
      expect(verifyToken(signToken("test.v1", claims, SECRET), KIND, SECRET)).toEqual({
        ok: false,
        reason: SignedUrlFailure.malformed,
      });
    }
  });

  it("accepts only the one spelling of a signature it writes, not others decoding to the same bytes", () => {
    const token = signToken("test.v1", { t: "a", e: 1 }, SECRET);
    const last = token.at(-1)!;
    // The 43rd character carries 4 digest bits and 2 unused ones: its 3 siblings decode alike.
    const index = BASE64URL.indexOf(last);
    const siblings = [0, 1, 2, 3].map((low) => BASE64URL[(index & ~3) | low]!).filter((c) => c !== last);
    for (const sibling of siblings) {
      const variant = token.slice(0, -1) + sibling;
      expect(Buffer.from(variant.split(".")[1]!, "base64url")).toEqual(
        Buffer.from(token.split(".")[1]!, "base64url"),
      );
      expect(verifyToken(variant, KIND, SECRET).ok).toBe(false);
    }
  });
});
