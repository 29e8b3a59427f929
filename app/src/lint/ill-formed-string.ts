/**
 * Finds a string (or key) holding a lone UTF-16 surrogate or a NUL, which JSON escapes like
 * "\ud800" and "\u0000" can produce. The first has no canonical JSON form (RFC 8785), the second
 * cannot be stored as text (PostgreSQL refuses U+0000), so neither could be hashed, planned or
 * kept: lint reports it as a parse failure instead of the service failing. Returns a JSON Pointer.
 */
export function illFormedStringAt(value: unknown, path = ""): string | undefined {
  if (typeof value === "string") return storable(value) ? undefined : path;
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = illFormedStringAt(item, `${path}/${i}`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (value !== null && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      const at = `${path}/${key.replaceAll("~", "~0").replaceAll("/", "~1")}`;
      if (!storable(key)) return at;
      const found = illFormedStringAt(item, at);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/**
 * Whether JSON.parse of `text` can yield a string illFormedStringAt would find: only through a
 * `\u` escape, or when the text itself holds a lone surrogate or a NUL. Most files have neither,
 * and then the walk over every string and key is skipped.
 */
export function jsonMayHoldIllFormedString(text: string): boolean {
  return text.includes("\\u") || !storable(text);
}

function storable(text: string): boolean {
  return text.isWellFormed() && !text.includes("\u0000");
}
