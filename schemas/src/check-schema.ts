import type { Ajv2020, ValidateFunction } from "ajv/dist/2020.js";
import { createAjv } from "./create-ajv.ts";
import { formatIssues, type SchemaIssue } from "./format-issues.ts";
import { precompiledValidators } from "./precompiled-validators.ts";
import { loadedSchemas } from "./schema-document.ts";
import { type SchemaName, schemaId } from "./schema-name.ts";

export type SchemaCheck<T = unknown> =
  | { valid: true; value: T; issues: [] }
  | { valid: false; value: undefined; issues: SchemaIssue[] };

let ajv: Ajv2020 | undefined;
const validators = new Map<SchemaName, ValidateFunction>();

/**
 * The compiled validator for `name`. Schemas are registered on first use and each is compiled
 * the first time it is needed, because a CLI run that checks one file should not pay for all.
 * Throws when a schema file is missing or does not compile in strict mode: a bug, not bad input.
 */
export function compileSchema(name: SchemaName): ValidateFunction {
  const cached = validators.get(name) ?? precompiledValidators?.get(name);
  if (cached !== undefined) return cached;
  if (ajv === undefined) {
    ajv = createAjv();
    // Meta-schema validation at registration costs start-up time; the test suite does it instead.
    for (const document of loadedSchemas().values()) ajv.addSchema(document, undefined, undefined, false);
  }
  const validate = ajv.getSchema(schemaId(name));
  if (validate === undefined) throw new Error(`schemas/json/${name}.schema.json does not exist`);
  validators.set(name, validate);
  return validate;
}

/**
 * Validates `value` against the schema `name` without mutating it. On success `value` is a deep
 * copy with every schema default filled in; on failure `issues` say what to fix, in path order.
 */
export function checkSchema<T = unknown>(name: SchemaName, value: unknown): SchemaCheck<T> {
  const validate = compileSchema(name);
  let copy: unknown;
  try {
    copy = structuredClone(value);
  } catch {
    return {
      valid: false,
      value: undefined,
      issues: [{ path: "", keyword: "type", message: "the value must be JSON data" }],
    };
  }
  if (validate(copy)) return { valid: true, value: copy as T, issues: [] };
  return { valid: false, value: undefined, issues: formatIssues(validate.errors ?? []) };
}

/**
 * Validates a value the caller built and owns, in place: no copy is made and schema defaults may
 * be filled into it. Returns the issues, empty when valid. For hot paths such as checking every
 * assembled ProblemRevision of a campaign; author input goes through checkSchema.
 */
export function validateOwned(name: SchemaName, value: unknown): SchemaIssue[] {
  const validate = compileSchema(name);
  return validate(value) ? [] : formatIssues(validate.errors ?? []);
}
