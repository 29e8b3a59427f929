import { applyCeilings } from "./ceilings.ts";
import { loadSchemas } from "./load-schemas.ts";
import type { SchemaName } from "./schema-name.ts";

let documents: Map<string, Record<string, unknown>> | undefined;

/**
 * Every schema file, read once on first use (not at import, so importing the package stays cheap),
 * with the ceilings of schemas/src/ceilings.ts applied to every string the files leave unbounded.
 */
export function loadedSchemas(): Map<string, Record<string, unknown>> {
  if (documents === undefined) {
    documents = loadSchemas();
    for (const document of documents.values()) applyCeilings(document);
  }
  return documents;
}

/** The raw JSON Schema named `name`, as a copy: changing it changes no validator. */
export function schemaDocument(name: SchemaName): object {
  const document = loadedSchemas().get(name);
  if (document === undefined) throw new Error(`schemas/json/${name}.schema.json does not exist`);
  return structuredClone(document);
}
