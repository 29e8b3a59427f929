import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ErrorCode } from "../../src/core/errors/error-code.ts";

const doc =
  readFileSync(new URL("../../../docs/errors.md", import.meta.url), "utf8").split("## Service errors")[1] ??
  "";
const rows = new Map([...doc.matchAll(/^\| `([a-z_]+)` \| (\d{3}) \|/gm)].map((m) => [m[1]!, Number(m[2])]));

describe("docs/errors.md service errors", () => {
  it.each(Object.entries(ErrorCode))("documents %s with its HTTP status", (code, { status }) => {
    expect(rows.get(code)).toBe(status);
  });

  it("documents no code the catalogue lacks", () => {
    expect([...rows.keys()].filter((code) => !(code in ErrorCode))).toEqual([]);
  });
});
