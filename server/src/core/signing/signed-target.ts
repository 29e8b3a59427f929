/**
 * A signed URL names exactly one target: an opaque string the route resolves, such as
 * `blob:sha256:<hex>`, `artifact:art_...` or `reference:prv_.../<key>`. Signing does not interpret
 * it; the length cap keeps tokens short enough for any URL.
 */
export const MAX_TARGET_LENGTH = 1024;

/** True when `value` can be a signed target: a string of 1 to 1024 characters. */
export function isSignedTarget(value: unknown): value is string {
  return typeof value === "string" && value.length >= 1 && value.length <= MAX_TARGET_LENGTH;
}

/** Throws a `TypeError` unless `value` can be a signed target. */
export function assertSignedTarget(value: unknown): asserts value is string {
  if (!isSignedTarget(value)) {
    throw new TypeError(`a signed URL target is a string of 1 to ${MAX_TARGET_LENGTH} characters`);
  }
}
