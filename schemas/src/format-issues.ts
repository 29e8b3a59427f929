import type { ErrorObject } from "ajv/dist/2020.js";
import { fieldLabel, issueMessage } from "./issue-message.ts";

/** One schema violation, addressed by a JSON Pointer (RFC 6901) into the validated value. */
export interface SchemaIssue {
  path: string;
  keyword: string;
  message: string;
}

/**
 * Turns ajv's raw errors into issues an author can act on: one per problem, pointing at the
 * field to fix (a missing or unknown property is addressed by its own path), without the
 * summary errors ajv adds for `if`, `propertyNames` and failed `anyOf`/`oneOf` alternatives,
 * deduplicated and sorted by path, then keyword, so output is deterministic.
 */
export function formatIssues(errors: readonly ErrorObject[]): SchemaIssue[] {
  const issues = new Map<string, SchemaIssue>();
  for (const error of collapseAlternatives(errors)) {
    if (error.keyword === "if" || error.keyword === "propertyNames") continue;
    const issue = toIssue(error);
    issues.set(`${issue.path}\u0000${issue.keyword}\u0000${issue.message}`, issue);
  }
  return [...issues.values()].sort(compareIssues);
}

function toIssue(error: ErrorObject): SchemaIssue {
  const params = error.params as Record<string, unknown>;
  const property =
    error.keyword === "required" || error.keyword === "dependentRequired"
      ? params.missingProperty
      : error.keyword === "additionalProperties"
        ? params.additionalProperty
        : error.keyword === "unevaluatedProperties"
          ? params.unevaluatedProperty
          : error.propertyName;
  const path =
    typeof property === "string" ? `${error.instancePath}/${escapeSegment(property)}` : error.instancePath;
  let label = typeof property === "string" ? `"${property}"` : fieldLabel(path);
  if (error.propertyName !== undefined) label = `property name ${label}`;
  let message = issueMessage(error, label);
  const hint = conditionalHint(error);
  if (hint !== undefined) message = `${message} (${hint})`;
  return { path, keyword: error.keyword, message };
}

/**
 * Schemas explain a conditional requirement in the `description` of the schema inside
 * `then`/`else` that fails; the error alone ("is required") would not say why.
 */
function conditionalHint(error: ErrorObject): string | undefined {
  if (!/\/(then|else)\//.test(error.schemaPath)) return undefined;
  const description = (error.parentSchema as { description?: unknown } | undefined)?.description;
  return typeof description === "string" ? description : undefined;
}

/**
 * A failed `anyOf`/`oneOf` makes ajv report every alternative's errors, then a summary. When
 * the value has the type of some alternative, that alternative's own errors say what to fix,
 * so the other alternatives' type mismatches and the summary are noise; when it has the type
 * of none, one "must be X or Y" says it all. Branch errors are the ones ajv emitted just before
 * the summary at or below the summary's path.
 */
function collapseAlternatives(errors: readonly ErrorObject[]): ErrorObject[] {
  const kept: ErrorObject[] = [];
  for (const error of errors) {
    const isSummary = (error.keyword === "anyOf" || error.keyword === "oneOf") && !hasPassingSchemas(error);
    if (!isSummary) {
      kept.push(error);
      continue;
    }
    const at = error.instancePath;
    let start = kept.length;
    while (start > 0 && isAtOrBelow(kept[start - 1]!.instancePath, at)) start--;
    const branch = kept.splice(start);
    const mismatches = branch.filter((e) => e.keyword === "type" && e.instancePath === at);
    const others = branch.filter((e) => !mismatches.includes(e));
    if (others.length > 0) {
      kept.push(...others);
    } else {
      const types = [...new Set(mismatches.flatMap((e) => typesOf(e)))];
      kept.push({ ...error, keyword: "type", params: { type: types } });
    }
  }
  return kept;
}

function hasPassingSchemas(error: ErrorObject): boolean {
  return error.keyword === "oneOf" && (error.params as { passingSchemas?: unknown }).passingSchemas != null;
}

function typesOf(error: ErrorObject): string[] {
  const type = (error.params as { type?: string | string[] }).type;
  return type === undefined ? [] : typeof type === "string" ? [type] : type;
}

function isAtOrBelow(path: string, ancestor: string): boolean {
  return path === ancestor || path.startsWith(`${ancestor}/`);
}

function escapeSegment(segment: string): string {
  return segment.replaceAll("~", "~0").replaceAll("/", "~1");
}

/** Orders paths segment by segment (array indexes numerically), then keywords, then messages. */
function compareIssues(a: SchemaIssue, b: SchemaIssue): number {
  return (
    comparePaths(a.path, b.path) || compareText(a.keyword, b.keyword) || compareText(a.message, b.message)
  );
}

function comparePaths(a: string, b: string): number {
  const left = a.split("/");
  const right = b.split("/");
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    const x = left[i]!;
    const y = right[i]!;
    if (x === y) continue;
    if (/^\d+$/.test(x) && /^\d+$/.test(y)) return Number(x) - Number(y) || compareText(x, y);
    return compareText(x, y);
  }
  return left.length - right.length;
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
