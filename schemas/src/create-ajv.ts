import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

/**
 * The validator configuration every svc schema is written for.
 *
 * `strict` turns schema mistakes (unknown keywords, ignored defaults, missing types) into compile
 * errors; `allowUnionTypes` permits the `["string", "null"]` nullable fields the records use.
 * `verbose` keeps the failing schema on each error so messages can list allowed properties.
 * Compiling is on the CLI's start-up path and the values are small, so code generation is tuned
 * for compile time: shared `$ref`s compile once instead of being inlined at every use, and the
 * generated code is not optimized (together about half the compile time of the defaults).
 */
export function createAjv(): Ajv2020 {
  const ajv = new Ajv2020({
    strict: true,
    allowUnionTypes: true,
    allErrors: true,
    useDefaults: true,
    verbose: true,
    inlineRefs: false,
    code: { optimize: false },
  });
  addFormats.default(ajv);
  return ajv;
}
