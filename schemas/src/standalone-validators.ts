import { _ } from "ajv/dist/compile/codegen/index.js";
import standaloneCode from "ajv/dist/standalone/index.js";
import { createAjv } from "./create-ajv.ts";
import { loadedSchemas } from "./schema-document.ts";
import { schemaId, schemaNames } from "./schema-name.ts";
import { createUserSchemaAjv, USER_META_SCHEMA_ID } from "./user-schema.ts";

/** The generated code imports the formats it checks from ajv-formats itself. */
const formats = _`require("ajv-formats/dist/formats").fullFormats`;

/**
 * ajv's standalone code of every schema, compiled with the options compileSchema uses (plus
 * optimized code) and the same ceilings, exporting `precompiledValidators` by name. Build time
 * only. An ES module replaces precompiled-validators.ts in a bundle; a CommonJS one is what
 * schemas/bin/build-validators.ts writes for the sources (built-validators.ts loads it).
 */
export function standaloneValidators(module: "esm" | "commonjs" = "esm"): string {
  const esm = module === "esm";
  const ajv = createAjv({
    source: true,
    esm,
    optimize: true,
    formats,
  });
  for (const document of loadedSchemas().values()) ajv.addSchema(document, undefined, undefined, false);
  // Export names must be identifiers; schema names have dashes.
  const exports = Object.fromEntries(schemaNames.map((name, i) => [`validator${i}`, schemaId(name)]));
  const validator = esm ? "validator" : "exports.validator";
  const entries = schemaNames.map((name, i) => `[${JSON.stringify(name)}, ${validator}${i}]`).join(", ");
  const map = `new Map([${entries}])`;
  return esm
    ? `${standaloneCode.default(ajv, exports)}\nexport const precompiledValidators = ${map};\n`
    : `${standaloneCode.default(ajv, exports)}\nexports.precompiledValidators = ${map};\n`;
}

/**
 * ajv's standalone code of the draft 2020-12 meta-schema, compiled on the instance author schemas
 * compile on, exporting `precompiledMetaSchema`. Build time only: an ES module replaces
 * precompiled-meta-schema.ts in a bundle, a CommonJS one is built for the sources.
 */
export function standaloneMetaSchema(module: "esm" | "commonjs" = "esm"): string {
  const ajv = createUserSchemaAjv({ source: true, esm: module === "esm", optimize: true, formats }, null);
  return standaloneCode.default(ajv, { precompiledMetaSchema: USER_META_SCHEMA_ID });
}
