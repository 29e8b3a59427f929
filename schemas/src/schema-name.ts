/** The schemas callers validate against; each is `schemas/json/<name>.schema.json`. */
export const schemaNames = [
  "problem",
  "campaign",
  "verifier-contract",
  "link",
  "skill-frontmatter",
  "review-protocol-document",
  "review-protocol",
  "verifier-implementation",
  "verifier-implementation-file",
  "problem-revision",
  "verification-run",
  "lint-record",
  "plan",
] as const;

export type SchemaName = (typeof schemaNames)[number];

/** Every schema's `$id` is this base followed by `<name>.schema.json`, so relative `$ref`s resolve between files. */
export const schemaIdBase = "https://svc.dev/schemas/";

export function schemaId(name: string): string {
  return `${schemaIdBase}${name}.schema.json`;
}
