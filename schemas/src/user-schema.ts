import {
  Ajv2020,
  type AnySchema,
  type CodeOptions,
  type Options,
  type ValidateFunction,
} from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { precompiledMetaSchema } from "./precompiled-meta-schema.ts";

// ajv-formats is CommonJS; under NodeNext its default import is typed as the module object.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

/** One way a value fails an author schema, structured: where (JSON Pointer), which keyword, why. */
export interface UserSchemaIssue {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
  message: string;
}

/**
 * Validates one value against a compiled author schema; `errors` are "<pointer> <message>" lines,
 * `issues` the same failures structured for callers that build their own messages.
 */
export type UserSchemaValidate = (value: unknown) => {
  valid: boolean;
  errors: string[];
  issues: UserSchemaIssue[];
};

export type CompileUserSchemaResult =
  | { ok: true; validate: UserSchemaValidate }
  | { ok: false; message: string };

/** The meta-schema every author schema is checked against unless it names another `$schema`. */
export const USER_META_SCHEMA_ID = "https://json-schema.org/draft/2020-12/schema";

/**
 * Checks schemas against a precompiled meta-schema validator when it has one (the bundle's).
 * Ajv calls validateSchema at the same point of compile() as before, so a schema fails with the
 * same message in the same order of checks; only compiling the meta-schema (12-30 ms on the first
 * author schema of a process) is skipped. A schema naming another `$schema` goes to Ajv as ever.
 */
class UserSchemaAjv extends Ajv2020 {
  /** Set after Ajv's constructor, which validates nothing: until then Ajv's own path is used. */
  metaSchema: ValidateFunction | null | undefined;

  constructor(options: Options, metaSchema: ValidateFunction | null) {
    super(options);
    this.metaSchema = metaSchema;
  }

  override validateSchema(schema: AnySchema, throwOrLogError?: boolean): boolean | Promise<unknown> {
    const meta = this.metaSchema;
    if (meta == null || typeof schema !== "object" || !namesDefaultMeta(schema.$schema)) {
      return super.validateSchema(schema, throwOrLogError);
    }
    const valid = meta(schema) === true;
    this.errors = meta.errors;
    if (!valid && throwOrLogError) throw new Error(`schema is invalid: ${this.errorsText()}`);
    return valid;
  }
}

/**
 * The Ajv instance author schemas compile on: apart from the service's own schemas, with
 * `strict: false` so unknown keywords (authors annotate freely) are tolerated. `code` is for the
 * build that precompiles its meta-schema (standalone-validators.ts); `metaSchema` checks schemas
 * instead of Ajv compiling the meta-schema (default: the precompiled one, if any; null: Ajv's own).
 */
export function createUserSchemaAjv(
  code: CodeOptions = {},
  metaSchema: ValidateFunction | null = precompiledMetaSchema ?? null,
): Ajv2020 {
  const ajv = new UserSchemaAjv({ strict: false, allErrors: true, logger: false, code }, metaSchema);
  addFormats(ajv);
  return ajv;
}

/** Ajv falls back to the default meta-schema for a missing or empty `$schema`. */
const namesDefaultMeta = ($schema: unknown) =>
  $schema === undefined || $schema === "" || $schema === USER_META_SCHEMA_ID;

// One shared instance: compiling the draft 2020-12 meta-schema costs 12-30 ms once (none with a
// precompiled one), while compiling an author schema on it takes well under 1 ms.
let shared: Ajv2020 | undefined;

/**
 * Compiles a JSON Schema (draft 2020-12) written by an author: a rubric's response_schema, a
 * stage's evidence_schema. It uses createUserSchemaAjv's instance, so unknown keywords are
 * tolerated, while a schema that breaks the meta-schema or does not compile (bad `$ref`, bad
 * regex) is refused. Whatever an author schema registers (`$id`s, anchors) is removed again, so
 * author schemas never see or collide with each other.
 */
export function compileUserSchema(schema: unknown): CompileUserSchemaResult {
  if (
    typeof schema !== "boolean" &&
    (typeof schema !== "object" || schema === null || Array.isArray(schema))
  ) {
    return { ok: false, message: "a JSON Schema must be an object or a boolean" };
  }
  shared ??= createUserSchemaAjv();
  const ajv = shared;
  const before = { refs: new Set(Object.keys(ajv.refs)), schemas: new Set(Object.keys(ajv.schemas)) };
  try {
    const compiled = ajv.compile(schema);
    return {
      ok: true,
      validate: (value) => {
        const valid = compiled(value) === true;
        const issues = (compiled.errors ?? []).map((e) => ({
          instancePath: e.instancePath,
          keyword: e.keyword,
          params: e.params as Record<string, unknown>,
          message: e.message ?? "is invalid",
        }));
        const errors = issues.map((e) => `${e.instancePath || "/"} ${e.message}`);
        return { valid, errors, issues };
      },
    };
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  } finally {
    if (typeof schema === "object") ajv.removeSchema(schema);
    for (const key of Object.keys(ajv.refs)) if (!before.refs.has(key)) delete ajv.refs[key];
    for (const key of Object.keys(ajv.schemas)) if (!before.schemas.has(key)) delete ajv.schemas[key];
  }
}
