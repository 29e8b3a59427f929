import { readFileSync } from "node:fs";
import { LintCode, NoteCode } from "@svc/schemas";
import { describe, expect, it } from "vitest";

// The lint part of the catalogue; the service's codes follow under "## Service errors".
const doc = readFileSync(new URL("../../../docs/errors.md", import.meta.url), "utf8").split(
  "## Service errors",
)[0]!;

describe("docs/errors.md", () => {
  it.each(Object.values(LintCode))("documents the lint error code %s", (code) => {
    expect(doc).toContain(`| \`${code}\` |`);
  });

  it.each(Object.values(NoteCode))("documents the note code %s", (code) => {
    expect(doc).toContain(`| \`${code}\` |`);
  });

  it("documents no code the catalogue lacks", () => {
    const documented = [...doc.matchAll(/^\| `([a-z_]+)` \|/gm)].map((m) => m[1]);
    const known = new Set<string>([...Object.values(LintCode), ...Object.values(NoteCode)]);
    expect(documented.filter((code) => !known.has(code!))).toEqual([]);
  });
});
