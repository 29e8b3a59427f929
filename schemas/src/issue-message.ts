import type { ErrorObject } from "ajv/dist/2020.js";

/** The longest rendering of a bad value inside a message; authors need a hint, not the whole value. */
const maxValueLength = 60;

/** Renders a value for a message: strings quoted and truncated, containers by kind. */
export function describeValue(value: unknown): string {
  if (typeof value === "string") {
    const shown = value.length > maxValueLength ? `${value.slice(0, maxValueLength)}…` : value;
    return JSON.stringify(shown);
  }
  if (Array.isArray(value)) return "an array";
  if (value !== null && typeof value === "object") return "an object";
  return String(value);
}

const typeNames: Record<string, string> = {
  string: "a string",
  number: "a number",
  integer: "an integer",
  boolean: "true or false",
  object: "an object",
  array: "an array",
  null: "null",
};

/** "a string or null" from ajv's `type` parameter (one type or several). */
export function describeTypes(types: string | readonly string[]): string {
  const list = typeof types === "string" ? [types] : types;
  return list.map((type) => typeNames[type] ?? type).join(" or ");
}

/** The kind of a JSON value, in the words `describeTypes` uses. */
export function describeKind(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (Number.isInteger(value)) return "an integer";
  return typeNames[typeof value] ?? typeof value;
}

/** Unescapes the last JSON Pointer segment of `path` into a quoted field label for messages. */
export function fieldLabel(path: string): string {
  if (path === "") return "the document";
  const segments = path.split("/").slice(1);
  const last = unescapeSegment(segments.at(-1) ?? "");
  if (/^\d+$/.test(last) && segments.length > 1) {
    return `item ${last} of "${unescapeSegment(segments.at(-2) ?? "")}"`;
  }
  return `"${last}"`;
}

function unescapeSegment(segment: string): string {
  return segment.replaceAll("~1", "/").replaceAll("~0", "~");
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

function list(values: readonly unknown[]): string {
  return values.map((value) => (value === null ? "null" : JSON.stringify(value))).join(", ");
}

/** Patterns the schemas share, explained in words; the pattern itself stays in the message. */
const patternWords: Record<string, string> = {
  "^[a-z0-9]+(-[a-z0-9]+)*$": "lowercase letters and digits in words joined by single hyphens",
  "^[a-z0-9]+(_[a-z0-9]+)*$": "lowercase letters and digits in words joined by single underscores",
  "^sha256:[0-9a-f]{64}$": "sha256: followed by 64 lowercase hex characters",
  "^https://[^\\s]+$": "an https:// URL without spaces",
};

function patternRule(pattern: string): string {
  if (pattern === "^[^\\r\\n]*$") return "must be a single line";
  const prefix = /^\^([a-z]{3})_\[0-9a-z\]\{10,32\}\$$/.exec(pattern)?.[1];
  const words =
    prefix !== undefined
      ? `${prefix}_ followed by 10 to 32 lowercase letters or digits`
      : patternWords[pattern];
  return `must match the pattern ${pattern}${words === undefined ? "" : ` (${words})`}`;
}

/**
 * An author-facing sentence for one ajv error about the field `label` names: what is wrong and
 * what is allowed instead.
 */
export function issueMessage(error: ErrorObject, label: string): string {
  const params = error.params as Record<string, unknown>;
  const got = describeValue(error.data);
  switch (error.keyword) {
    case "required":
    case "dependentRequired":
      return `${label} is required`;
    case "additionalProperties":
    case "unevaluatedProperties": {
      const allowed = Object.keys((error.parentSchema?.properties as object | undefined) ?? {});
      const hint = allowed.length > 0 ? ` (allowed: ${allowed.join(", ")})` : "";
      return `unknown property ${label}; remove it${hint}`;
    }
    case "type":
      return `${label} must be ${describeTypes(params.type as string | string[])}; got ${describeKind(error.data)}`;
    case "enum":
      return `${label} must be one of ${list(params.allowedValues as unknown[])}; got ${got}`;
    case "const":
      return `${label} must be ${list([params.allowedValue])}; got ${got}`;
    case "pattern":
      return `${label} ${patternRule(String(params.pattern))}; got ${got}`;
    case "format":
      return params.format === "date-time"
        ? `${label} must be an RFC 3339 date-time such as 2026-01-31T12:00:00Z; got ${got}`
        : `${label} must be a valid ${String(params.format)}; got ${got}`;
    case "minLength":
      return params.limit === 1
        ? `${label} must not be empty`
        : `${label} must be at least ${plural(Number(params.limit), "character")} long`;
    case "maxLength":
      return `${label} must be at most ${plural(Number(params.limit), "character")} long; got ${String(error.data).length}`;
    case "minimum":
      return `${label} must be at least ${String(params.limit)}; got ${got}`;
    case "maximum":
      return `${label} must be at most ${String(params.limit)}; got ${got}`;
    case "exclusiveMinimum":
      return `${label} must be greater than ${String(params.limit)}; got ${got}`;
    case "exclusiveMaximum":
      return `${label} must be less than ${String(params.limit)}; got ${got}`;
    case "multipleOf":
      return `${label} must be a multiple of ${String(params.multipleOf)}; got ${got}`;
    case "minItems":
      return params.limit === 1
        ? `${label} must not be empty`
        : `${label} must have at least ${plural(Number(params.limit), "item")}`;
    case "maxItems":
      return `${label} must have at most ${plural(Number(params.limit), "item")}; got ${(error.data as unknown[]).length}`;
    case "uniqueItems":
      return `${label} must not repeat an item (items ${String(params.j)} and ${String(params.i)} are equal)`;
    case "minProperties":
      return `${label} must have at least ${plural(Number(params.limit), "property")}`;
    case "maxProperties":
      return `${label} must have at most ${plural(Number(params.limit), "property")}`;
    case "not":
    case "false schema":
      return `${label} is not allowed here; remove it`;
    case "oneOf":
      return `${label} must match exactly one of the allowed forms`;
    case "anyOf":
      return `${label} must match one of the allowed forms`;
    default:
      return `${label} ${error.message ?? "is invalid"}`;
  }
}
