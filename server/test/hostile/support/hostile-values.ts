import fc from "fast-check";

/**
 * Text no input may turn into `internal`: NUL, lone surrogates (both halves), a bidirectional
 * override, integers past bigint in both directions as decimal strings, and one huge string.
 */
export const HOSTILE_STRINGS = [
  "a\u0000b",
  "a\ud800b",
  "\udc00",
  "a\u202etxt.exe",
  "9223372036854775808",
  "99999999999999999999",
  "-9223372036854775809",
  "x".repeat(70_000),
  "",
] as const;

/** Numbers past every column the service stores: int4, bigint, doubles, fractions. */
export const HOSTILE_NUMBERS = [
  0,
  -1,
  2_147_483_648,
  Number.MAX_SAFE_INTEGER,
  2 ** 63,
  2 ** 64,
  -(2 ** 63),
  1e20,
  1.5,
] as const;

/** Strings that look like what the service takes (ids of every kind, slugs, hashes) and hostile ones. */
export const plausibleString = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom(
    "free",
    "graded",
    "secret",
    "att_0000000000",
    "prb_0000000000",
    "sub_0000000000",
    "vrn_0000000000",
    "art_0000000000",
    "nte_0000000000",
    "org_0000000000",
    "esb_0000000000",
    "sha256:0000000000000000000000000000000000000000000000000000000000000000",
    ...HOSTILE_STRINGS,
  ),
);

/** Any value an input field might get: plausible and hostile strings, hostile numbers, any JSON. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: plausibleString },
  { weight: 2, arbitrary: fc.constantFrom(...HOSTILE_NUMBERS) },
  { weight: 1, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
);
