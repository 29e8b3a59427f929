import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ErrorCatalogue, type ErrorFamily } from "../src/index.ts";

const doc = readFileSync(new URL("../../docs/errors.md", import.meta.url), "utf8");

/** The heading of the docs/errors.md section that lists each family. */
const SECTIONS: Record<ErrorFamily, string> = {
  lint: "## Lint errors",
  note: "## Lint notes",
  service: "## Service errors",
  tree: "## Package tree refusals",
  blob: "## Blob refusals",
  transport: "## Transport codes",
  warning: "## Reconciliation warnings",
  review: "## Review process endings",
};

/** The table rows of one section: the code in the first column, the HTTP status when the second is one. */
function rows(heading: string): Map<string, number | undefined> {
  const start = doc.indexOf(`${heading}\n`);
  if (start < 0) throw new Error(`docs/errors.md has no "${heading}" section`);
  const rest = doc.slice(start + heading.length);
  const section = rest.slice(0, rest.search(/^## /m) === -1 ? undefined : rest.search(/^## /m));
  const found = new Map<string, number | undefined>();
  for (const m of section.matchAll(/^\| `([a-z_]+)` \| (?:(\d{3}) \|)?/gm)) {
    found.set(m[1]!, m[2] === undefined ? undefined : Number(m[2]));
  }
  return found;
}

describe("docs/errors.md and the error catalogue", () => {
  it.each(Object.keys(SECTIONS) as ErrorFamily[])("lists exactly the %s codes of the catalogue", (family) => {
    const documented = rows(SECTIONS[family]);
    expect([...documented.keys()].sort()).toEqual(Object.keys(ErrorCatalogue[family]).sort());
  });

  it("gives every service code the catalogue's HTTP status", () => {
    const documented = rows(SECTIONS.service);
    for (const [code, entry] of Object.entries(ErrorCatalogue.service)) {
      expect(documented.get(code), code).toBe(entry.status);
    }
  });
});
