import { compileUserSchema } from "@svc/schemas";
import type { BuiltinVerdict } from "./check-sat-assignment.ts";
import { decodeJson } from "./decode-json.ts";

/**
 * `svc-builtin/json-schema-check:1` (decisions.md): the reference `document_schema` is a JSON
 * Schema (2020-12), the artifact `document` is JSON; verified when the document is valid,
 * refuted when not, inconclusive when either file does not parse (a schema that does not compile
 * counts as not parsing: nothing can be checked against it).
 */
export function checkJsonSchema(schemaBytes: Uint8Array, documentBytes: Uint8Array): BuiltinVerdict {
  const schema = decodeJson(schemaBytes);
  if (!schema.ok) return { result: "inconclusive", summary: `the schema is not JSON: ${schema.reason}` };
  const compiled = compileUserSchema(schema.value);
  if (!compiled.ok) {
    return { result: "inconclusive", summary: `the schema does not compile: ${compiled.message}` };
  }
  const document = decodeJson(documentBytes);
  if (!document.ok)
    return { result: "inconclusive", summary: `the document is not JSON: ${document.reason}` };
  const { valid, errors } = compiled.validate(document.value);
  if (valid) return { result: "verified", summary: "the document satisfies the schema" };
  const shown = errors.slice(0, 20).join("; ");
  const more = errors.length > 20 ? ` (and ${errors.length - 20} more)` : "";
  return { result: "refuted", summary: `the document violates the schema: ${shown}${more}` };
}
