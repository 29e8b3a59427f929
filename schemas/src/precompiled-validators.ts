import type { ValidateFunction } from "ajv/dist/2020.js";
import { builtValidators } from "./built-validators.ts";

/**
 * Validators compiled ahead of time, by schema name. From the sources: the ones
 * schemas/bin/build-validators.ts built, while they are up to date, else none, and compileSchema
 * compiles each schema on first use. The `svc` bundle (app/bin/build-cli.ts) replaces this module
 * with ajv's standalone code for every schema, because compiling them was a third of `svc lint`'s
 * run time.
 */
export const precompiledValidators = builtValidators<ReadonlyMap<string, ValidateFunction>>(
  "validators.cjs",
  "precompiledValidators",
);
