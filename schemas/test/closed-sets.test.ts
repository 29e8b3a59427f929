import { readdirSync, readFileSync, statSync } from "node:fs";
import { describe, expect, it } from "vitest";
import * as schemas from "../src/index.ts";
import { IdPrefix, idPatternSource, type SchemaName, schemaDocument } from "../src/index.ts";

/** Every closed set the schemas export: an object whose values are all strings. */
const closedSets = Object.entries(schemas as Record<string, unknown>).filter(
  (entry): entry is [string, Record<string, string>] => {
    const value = entry[1];
    if (!value || typeof value !== "object" || Array.isArray(value)) return false;
    const members = Object.values(value);
    return members.length > 0 && members.every((member) => typeof member === "string");
  },
);

const schemaNames = readdirSync(new URL("../json/", import.meta.url))
  .filter((file) => file.endsWith(".schema.json"))
  .map((file) => file.slice(0, -".schema.json".length) as SchemaName);

/** Calls `visit(key, value, pointer)` for every property of a JSON document, depth first. */
function walk(
  node: unknown,
  visit: (key: string, value: unknown, pointer: string) => void,
  pointer = "",
): void {
  if (!node || typeof node !== "object") return;
  for (const [key, value] of Object.entries(node)) {
    const at = `${pointer}/${key}`;
    visit(key, value, at);
    walk(value, visit, at);
  }
}

const sorted = (values: readonly unknown[]) => [...values].map(String).sort();

describe("closed sets in the JSON Schemas", () => {
  it.each(schemaNames)("%s: every string enum is exactly one of the schemas' closed sets", (name) => {
    const strays: string[] = [];
    walk(schemaDocument(name), (key, value, pointer) => {
      if (key !== "enum" || !Array.isArray(value)) return;
      const members = sorted(value.filter((member) => member !== null));
      if (!closedSets.some(([, set]) => sameMembers(Object.values(set), members))) {
        strays.push(`${pointer}: ${members.join(", ")}`);
      }
    });
    expect(strays).toEqual([]);
  });

  it.each(schemaNames)("%s: every id pattern is idPattern(prefix) of a known prefix", (name) => {
    const prefixes = new Set<string>(Object.values(IdPrefix));
    const wrong: string[] = [];
    walk(schemaDocument(name), (key, value, pointer) => {
      if (key !== "pattern" || typeof value !== "string") return;
      for (const m of value.matchAll(/([a-z]{3})_\[0-9a-z\]\{[^}]*\}/g)) {
        const prefix = m[1]!;
        if (!prefixes.has(prefix) || m[0] !== idPatternSource(prefix as IdPrefix))
          wrong.push(`${pointer}: ${m[0]}`);
      }
    });
    expect(wrong).toEqual([]);
  });
});

function sameMembers(a: readonly string[], b: readonly string[]): boolean {
  const x = sorted(a);
  return x.length === b.length && x.every((member, index) => member === b[index]);
}

/** The workspaces' source folders that must import closed sets, never spell them out. */
const SOURCE_ROOTS = ["../../server/src", "../../app/src", "../../github-app/src", "../../lint-action/src"];

function sourceFiles(directory: URL): URL[] {
  const files: URL[] = [];
  for (const entry of readdirSync(directory)) {
    const url = new URL(entry, directory);
    if (statSync(url).isDirectory()) files.push(...sourceFiles(new URL(`${entry}/`, directory)));
    else if (entry.endsWith(".ts")) files.push(url);
  }
  return files;
}

/**
 * Runs of three or more double-quoted literals joined by `,` or `|` (a literal array, a union, a
 * z.enum list). Single quotes are SQL, which the migrations test checks against the sets instead.
 */
const LITERAL_RUN = /"[A-Za-z0-9_]+"(?:\s*[,|]\s*"[A-Za-z0-9_]+"){2,}/g;

/** Every match of `pattern` in the sources outside schemas, with the file and line it stands on. */
function sourceMatches(pattern: RegExp): Array<{ match: RegExpMatchArray; where: string }> {
  const found: Array<{ match: RegExpMatchArray; where: string }> = [];
  for (const root of SOURCE_ROOTS) {
    const directory = new URL(`${root}/`, import.meta.url);
    if (!statSync(directory, { throwIfNoEntry: false })?.isDirectory()) continue;
    for (const file of sourceFiles(directory)) {
      const text = readFileSync(file, "utf8");
      for (const match of text.matchAll(pattern)) {
        found.push({ match, where: `${file.pathname}:${text.slice(0, match.index).split("\n").length}` });
      }
    }
  }
  return found;
}

describe("closed sets are declared once", () => {
  it("no source outside schemas spells out three or more members of a catalogued set", () => {
    const sets = closedSets
      .map(([name, set]) => [name, new Set(Object.values(set))] as const)
      .filter(([, members]) => members.size >= 3);
    const found = sourceMatches(LITERAL_RUN).flatMap(({ match, where }) => {
      const literals = [...match[0].matchAll(/"([A-Za-z0-9_]+)"/g)].map((l) => l[1]!);
      return sets
        .filter(([, members]) => literals.every((literal) => members.has(literal)))
        .map(([name]) => `${where} spells out ${name}: ${match[0]}`);
    });
    expect(found).toEqual([]);
  });

  it("no source outside schemas writes a two-member set as a union of its literals", () => {
    const pairs = closedSets
      .map(([name, set]) => [name, sorted(Object.values(set)).join("|")] as const)
      .filter(([, key]) => key.split("|").length === 2);
    const found = sourceMatches(/"([A-Za-z0-9_]+)"\s*\|\s*"([A-Za-z0-9_]+)"/g).flatMap(({ match, where }) => {
      const key = sorted([match[1], match[2]]).join("|");
      return pairs
        .filter(([, members]) => members === key)
        .map(([name]) => `${where} writes ${name} as ${match[0]}`);
    });
    expect(found).toEqual([]);
  });
});
