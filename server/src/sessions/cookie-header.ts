/**
 * The value of one cookie in a `Cookie` request header, or null when it is absent. The service
 * reads a single cookie of its own, so this small parser (RFC 6265 section 5.4: pairs split on
 * `;`, the first `=` separating name from value, optional surrounding quotes) is all it needs;
 * a header over 8 KiB is not read at all. When the name repeats, the first pair wins, as browsers
 * send the most specific cookie first.
 */
export function readCookie(header: string | undefined, name: string): string | null {
  if (!header || header.length > MAX_COOKIE_HEADER) return null;
  for (const pair of header.split(";")) {
    const eq = pair.indexOf("=");
    if (eq < 0 || pair.slice(0, eq).trim() !== name) continue;
    const value = pair.slice(eq + 1).trim();
    return value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value;
  }
  return null;
}

const MAX_COOKIE_HEADER = 8192;
