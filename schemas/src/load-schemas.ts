import { readdirSync, readFileSync } from "node:fs";
import { schemaId } from "./schema-name.ts";

/** The JSON Schema files shipped in `schemas/json/`, next to this package's `src/`. */
export const schemaDirectory: URL = new URL("../json/", import.meta.url);

/**
 * Reads every `*.schema.json` in `directory`, keyed by name (the file name without `.schema.json`).
 * Every file is loaded, not only the ones this package names, so schemas written by other modules
 * (and the shared `common` definitions they `$ref`) are picked up without a code change.
 */
export function loadSchemas(directory: URL = schemaDirectory): Map<string, Record<string, unknown>> {
  const schemas = new Map<string, Record<string, unknown>>();
  for (const file of readdirSync(directory).sort()) {
    if (!file.endsWith(".schema.json")) continue;
    const name = file.slice(0, -".schema.json".length);
    const document = JSON.parse(readFileSync(new URL(file, directory), "utf8")) as Record<string, unknown>;
    if (document.$id !== schemaId(name)) {
      throw new Error(`schemas/json/${file}: $id must be ${schemaId(name)}, found ${String(document.$id)}`);
    }
    schemas.set(name, document);
  }
  return schemas;
}
