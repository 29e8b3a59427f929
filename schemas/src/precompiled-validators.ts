import type { ValidateFunction } from "ajv/dist/2020.js";

/**
 * Validators compiled ahead of time, by schema name. None when running from the sources, where
 * compileSchema compiles each schema on first use; the `svc` bundle (app/bin/build-cli.ts)
 * replaces this module with ajv's standalone code for every schema, because compiling them was
 * a third of `svc lint`'s run time.
 */
export const precompiledValidators: ReadonlyMap<string, ValidateFunction> | undefined = undefined;
