import { _ } from "ajv/dist/compile/codegen/index.js";
import standaloneCode from "ajv/dist/standalone/index.js";
import { createAjv } from "./create-ajv.ts";
import { loadedSchemas } from "./schema-document.ts";
import { schemaId, schemaNames } from "./schema-name.ts";
import { createUserSchemaAjv, USER_META_SCHEMA_ID } from "./user-schema.ts";

/** The generated code imports the formats it checks from ajv-formats itself. */
const formats = _`require("ajv-formats/dist/formats").fullFormats`;

/**
 * The source of an ES module that replaces precompiled-validators.ts in a bundle: ajv's
 * standalone code of every schema, compiled with the options compileSchema uses (plus optimized
 * code) and the same ceilings, exporting `precompiledValidators` by name. Build time only.
 */
export function standaloneValidators(): string {
  const ajv = createAjv({
    source: true,
    esm: true,
    optimize: true,
    formats,
  });
  for (const document of loadedSchemas().values()) ajv.addSchema(document, undefined, undefined, false);
  // Export names must be identifiers; schema names have dashes.
  const exports = Object.fromEntries(schemaNames.map((name, i) => [`validator${i}`, schemaId(name)]));
  const entries = schemaNames.map((name, i) => `[${JSON.stringify(name)}, validator${i}]`).join(", ");
  return `${standaloneCode.default(ajv, exports)}\nexport const precompiledValidators = new Map([${entries}]);\n`;
}

/**
 * The source of an ES module that replaces precompiled-meta-schema.ts in a bundle: ajv's
 * standalone code of the draft 2020-12 meta-schema, compiled on the instance author schemas
 * compile on, exporting `precompiledMetaSchema`. Build time only.
 */
export function standaloneMetaSchema(): string {
  const ajv = createUserSchemaAjv({ source: true, esm: true, optimize: true, formats });
  return standaloneCode.default(ajv, { precompiledMetaSchema: USER_META_SCHEMA_ID });
}
