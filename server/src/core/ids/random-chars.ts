import { randomBytes } from "node:crypto";

/**
 * `length` characters drawn uniformly from `alphabet` with a cryptographic source. Bytes at or
 * above the largest multiple of the alphabet's size are rejected, so no character is favoured.
 */
export function randomChars(alphabet: string, length: number): string {
  const limit = 256 - (256 % alphabet.length);
  let out = "";
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < limit) out += alphabet[byte % alphabet.length];
      if (out.length === length) break;
    }
  }
  return out;
}
