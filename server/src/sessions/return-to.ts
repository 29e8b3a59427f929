/** The longest return_to kept; a longer one is dropped, not cut. */
const MAX_RETURN_TO = 2048;

/**
 * `value` when it is a path on this service that is safe to redirect to after sign-in, else null
 * (the caller then uses its default). Only a relative path starting with a single `/` passes: no
 * scheme, no `//host` or `/\host` (which browsers read as another origin), no backslash or
 * control character anywhere, and resolving it must not leave the origin. This is what stops
 * `/sign-in?return_to=https://evil.example` from being an open redirect.
 */
export function safeReturnTo(value: unknown): string | null {
  if (typeof value !== "string" || value.length === 0 || value.length > MAX_RETURN_TO) return null;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
  if (!value.startsWith("/") || /[\\\u0000-\u001f\u007f]/.test(value)) return null;
  if (value.startsWith("//")) return null;
  const base = "http://return-to.invalid";
  let url: URL;
  try {
    url = new URL(value, base);
  } catch {
    return null;
  }
  if (url.origin !== base) return null;
  return `${url.pathname}${url.search}${url.hash}`;
}
