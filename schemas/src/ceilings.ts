/**
 * The ceilings of every free-text value a package or a record holds, stated once. The spec gives
 * limits for many fields (titles, slugs, keys, revision_note, instructions_md...) and the JSON
 * Schemas state those; every string the spec leaves unbounded gets one of the ceilings below,
 * applied to the schemas as they load (see `applyCeilings`), so a 250 MiB statement is impossible
 * whatever reads it. The archive reader checks the document files against `documentCeiling` while
 * it streams them, and lint checks the same files before reading them. docs/errors.md has the table.
 */
export const Ceilings = {
  /** statement.md and a revision's statement_md, in UTF-8 bytes (256 KiB, the spec's script ceiling). */
  statement_bytes: 262_144,
  /** Any other Markdown document of a package (SKILL.md, context.md, changelog.md), in UTF-8 bytes. */
  markdown_file_bytes: 262_144,
  /** A JSON document of a package (problem.json, verifier-contract.json, *.link.json...), in bytes. */
  json_file_bytes: 2_097_152,
  /** A `statement_md` field, in characters (never more than its file's bytes). */
  statement_chars: 262_144,
  /** Any other Markdown field (`*_md`) without a limit of its own, in characters. */
  markdown_chars: 65_536,
  /** Any other string without a limit of its own (descriptions, units, licenses...), in characters. */
  text_chars: 10_000,
} as const;

/** JSON documents of a package, by file name; a fixture or a skill file is data, bounded by the archive only. */
const JSON_DOCUMENTS = new Set([
  "problem.json",
  "campaign.json",
  "verifier-contract.json",
  "verifier-implementation.json",
  "review-protocol.json",
]);
/** Markdown documents the service parses or stores as text. */
const MARKDOWN_DOCUMENTS = new Set(["SKILL.md", "context.md", "changelog.md"]);

/** A document file's ceiling: its size in bytes, and the field it becomes, for messages. */
export interface DocumentCeiling {
  bytes: number;
  /** What the ceiling applies to, as a message says it: "statement_md", "a JSON document". */
  field: string;
}

/**
 * The ceiling of a package file the service reads as a document, by its path; undefined for data
 * files (fixtures, references, skill files), which only the archive's totals bound.
 */
export function documentCeiling(path: string): DocumentCeiling | undefined {
  const name = path.slice(path.lastIndexOf("/") + 1);
  if (name === "statement.md") return { bytes: Ceilings.statement_bytes, field: "statement_md" };
  if (MARKDOWN_DOCUMENTS.has(name))
    return { bytes: Ceilings.markdown_file_bytes, field: "a Markdown document" };
  if (JSON_DOCUMENTS.has(name) || name.endsWith(".link.json")) {
    return { bytes: Ceilings.json_file_bytes, field: "a JSON document" };
  }
  return undefined;
}

/** "262144 bytes (256 KiB)": a ceiling as messages state it. */
export function describeBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0)
    return `${bytes} bytes (${bytes / 1024 / 1024} MiB)`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes} bytes (${bytes / 1024} KiB)`;
  return `${bytes} bytes`;
}

/**
 * The message for a document over its ceiling; lint and the archive reader say the same. The
 * archive reader stops reading at the first byte over, so it knows a lower bound (`atLeast`).
 */
export function documentCeilingMessage(
  path: string,
  size: number,
  ceiling: DocumentCeiling,
  atLeast = false,
): string {
  return (
    `${path} is ${atLeast ? "at least " : ""}${size} bytes; the ceiling for ${ceiling.field} is ${describeBytes(ceiling.bytes)}, ` +
    "so shorten it or move bulk data into a reference file"
  );
}

/** The ceiling of a string property without a `maxLength` of its own, by the property's name. */
export function stringCeiling(property: string): number {
  if (property === "statement_md") return Ceilings.statement_chars;
  if (property.endsWith("_md")) return Ceilings.markdown_chars;
  return Ceilings.text_chars;
}

/**
 * Gives every string-typed schema node without a `maxLength` the ceiling of its property name, in
 * place. Nodes with a pattern, a format or an enum are bounded already and left alone. Run once on
 * the loaded documents, so validators and the schemas the service serves state the same ceilings.
 */
export function applyCeilings(schema: unknown, property = ""): void {
  if (Array.isArray(schema)) {
    for (const item of schema) applyCeilings(item, property);
    return;
  }
  if (schema === null || typeof schema !== "object") return;
  const node = schema as Record<string, unknown>;
  const type = node.type;
  const isString = type === "string" || (Array.isArray(type) && type.includes("string"));
  const bounded =
    "maxLength" in node || "pattern" in node || "format" in node || "enum" in node || "const" in node;
  if (isString && !bounded) node.maxLength = stringCeiling(property);
  for (const [key, value] of Object.entries(node)) {
    if (key === "properties" && value !== null && typeof value === "object") {
      for (const [name, child] of Object.entries(value)) applyCeilings(child, name);
    } else if (key === "$defs" && value !== null && typeof value === "object") {
      for (const child of Object.values(value)) applyCeilings(child, "");
    } else if (key !== "default" && key !== "examples" && key !== "const" && key !== "enum") {
      applyCeilings(value, property);
    }
  }
}
