import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";

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

// One shared instance: building one compiles the draft 2020-12 meta-schema, about 12 ms, while
// compiling an author schema on it takes well under 1 ms.
let shared: Ajv2020 | undefined;

/**
 * Compiles a JSON Schema (draft 2020-12) written by an author: a rubric's response_schema, a
 * stage's evidence_schema. It uses an Ajv instance apart from the service's own schemas, with
 * `strict: false` so unknown keywords (authors annotate freely) are tolerated, while a schema
 * that breaks the meta-schema or does not compile (bad `$ref`, bad regex) is refused. Whatever
 * an author schema registers (`$id`s, anchors) is removed again, so author schemas never see
 * or collide with each other.
 */
export function compileUserSchema(schema: unknown): CompileUserSchemaResult {
  if (
    typeof schema !== "boolean" &&
    (typeof schema !== "object" || schema === null || Array.isArray(schema))
  ) {
    return { ok: false, message: "a JSON Schema must be an object or a boolean" };
  }
  if (shared === undefined) {
    shared = new Ajv2020({ strict: false, allErrors: true, logger: false });
    addFormats(shared);
  }
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
