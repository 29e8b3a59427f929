/**
 * Finds a string (or key) holding a lone UTF-16 surrogate, which JSON escapes like "\ud800" can
 * produce. Such a value has no canonical JSON form (RFC 8785), so it could never be hashed or
 * planned: lint reports it as a parse failure instead of crashing. Returns a JSON Pointer to it.
 */
export function illFormedStringAt(value: unknown, path = ""): string | undefined {
  if (typeof value === "string") return value.isWellFormed() ? undefined : path;
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
      if (!key.isWellFormed()) return at;
      const found = illFormedStringAt(item, at);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}
