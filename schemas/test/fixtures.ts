import { readFileSync } from "node:fs";
import { checkSchema, type SchemaName } from "../src/index.ts";

/** Reads test/fixtures/valid/<name>.<variant>.json: a valid example of a schema. */
export function validExample(name: SchemaName, variant: "minimal" | "full"): Record<string, unknown> {
  const url = new URL(`fixtures/valid/${name}.${variant}.json`, import.meta.url);
  return JSON.parse(readFileSync(url, "utf8")) as Record<string, unknown>;
}

/** The [path, keyword] pairs `checkSchema` reports, for compact assertions. */
export function issuesOf(name: SchemaName, value: unknown): Array<[string, string]> {
  return checkSchema(name, value).issues.map((issue) => [issue.path, issue.keyword]);
}

/** The single issue `checkSchema` reports; fails the test when there is not exactly one. */
export function onlyIssue(
  name: SchemaName,
  value: unknown,
): { path: string; keyword: string; message: string } {
  const { issues } = checkSchema(name, value);
  if (issues.length !== 1) throw new Error(`expected one issue, got ${JSON.stringify(issues, null, 2)}`);
  return issues[0]!;
}

/** The schemas this test suite owns examples for (the review-protocol ones have their own). */
export const exampleSchemas = [
  "problem",
  "campaign",
  "verifier-contract",
  "link",
  "skill-frontmatter",
  "verifier-implementation",
  "problem-revision",
  "verification-run",
  "lint-record",
  "plan",
] as const satisfies readonly SchemaName[];
