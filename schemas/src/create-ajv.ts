import { Ajv2020, type CodeOptions } from "ajv/dist/2020.js";
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
 * `code` adds code generation options: the svc bundle compiles every schema ahead of time
 * (precompiled-validators.ts) with `source`, `esm` and optimized code.
 */
export function createAjv(code: CodeOptions = {}): Ajv2020 {
  const ajv = new Ajv2020({
    strict: true,
    allowUnionTypes: true,
    allErrors: true,
    useDefaults: true,
    verbose: true,
    inlineRefs: false,
    code: { optimize: false, ...code },
  });
  addFormats.default(ajv);
  return ajv;
}
