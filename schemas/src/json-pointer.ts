/** Builds a JSON Pointer from unescaped segments: pointer("stages", 0, "key") -> "/stages/0/key". */
export function pointer(...segments: Array<string | number>): string {
  return segments.map((s) => `/${String(s).replaceAll("~", "~0").replaceAll("/", "~1")}`).join("");
}
