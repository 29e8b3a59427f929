/**
 * A string that is not `sha256:` followed by 64 lowercase hex digits was given where a content
 * hash was expected. Thrown before any file is touched.
 */
export class InvalidContentHashError extends Error {
  readonly code = "invalid_content_hash";
  /** The offending value, cut to 100 characters so a hostile string cannot flood a log. */
  readonly hash: string;

  constructor(value: unknown) {
    const shown = typeof value === "string" ? value.slice(0, 100) : typeof value;
    super(`"${shown}" is not a content hash: write sha256: followed by 64 lowercase hex digits`);
    this.name = "InvalidContentHashError";
    this.hash = shown;
  }
}
