import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { ValidateFunction } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildValidators } from "../bin/build-validators.ts";
import { builtValidators } from "../src/built-validators.ts";
import { createAjv } from "../src/create-ajv.ts";
import { formatIssues } from "../src/format-issues.ts";
import { loadedSchemas } from "../src/schema-document.ts";
import { schemaId, schemaNames } from "../src/schema-name.ts";
import { exampleSchemas, validExample } from "./fixtures.ts";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "svc-built-validators-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A folder of built modules whose record names one input, `input.txt`, built at `builtAt`. */
function builtFolder(name: string, builtAt: number, inputMtime: number): URL {
  const folder = join(dir, name);
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(folder);
  writeFileSync(join(folder, "input.txt"), "x");
  utimesSync(join(folder, "input.txt"), inputMtime / 1000, inputMtime / 1000);
  writeFileSync(join(folder, "answer.cjs"), "exports.answer = 42;\n");
  writeFileSync(
    join(folder, "validators.json"),
    JSON.stringify({ built_at: builtAt, inputs: [`${name}/input.txt`] }),
  );
  return pathToFileURL(`${folder}/`);
}

describe("builtValidators", () => {
  it("loads a build whose every input is older than it", () => {
    const folder = builtFolder("fresh", Date.now(), Date.now() - 60_000);
    expect(builtValidators<number>("answer.cjs", "answer", folder, `${dir}/`)).toBe(42);
  });

  it("ignores a build an input changed after, and one without a record", () => {
    const folder = builtFolder("stale", Date.now() - 60_000, Date.now());
    expect(builtValidators<number>("answer.cjs", "answer", folder, `${dir}/`)).toBeUndefined();
    const none = pathToFileURL(`${join(dir, "none")}/`);
    expect(builtValidators<number>("answer.cjs", "answer", none, `${dir}/`)).toBeUndefined();
  });
});

describe("the validators build-validators.ts writes", () => {
  let built: ReadonlyMap<string, ValidateFunction>;
  // Beside schemas/dist, so the modules find ajv in node_modules as the real ones do.
  const folder = new URL(`../dist-test-${process.pid}/`, import.meta.url);
  beforeAll(() => {
    buildValidators(folder);
    built = builtValidators<ReadonlyMap<string, ValidateFunction>>(
      "validators.cjs",
      "precompiledValidators",
      folder,
    )!;
  });
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it("cover every schema and are found while the sources are unchanged", () => {
    expect([...built.keys()]).toEqual([...schemaNames]);
  });

  it("accept and refuse what ajv's compiled validators do, with the same issues", () => {
    const ajv = createAjv();
    for (const document of loadedSchemas().values()) ajv.addSchema(document, undefined, undefined, false);
    const values = (name: string) => [
      {},
      [],
      null,
      "text",
      { title: 5, id: -1, slug: "Not A Slug", extra: true },
      ...(exampleSchemas.includes(name as never)
        ? [validExample(name as never, "minimal"), validExample(name as never, "full")]
        : []),
    ];
    for (const name of schemaNames) {
      const compiled = ajv.getSchema(schemaId(name))!;
      for (const value of values(name)) {
        const [a, b] = [structuredClone(value), structuredClone(value)];
        const ok = compiled(a);
        expect(built.get(name)!(b), `${name} ${JSON.stringify(value)}`).toBe(ok);
        expect(formatIssues(built.get(name)!.errors ?? [])).toEqual(formatIssues(compiled.errors ?? []));
        expect(b).toEqual(a);
      }
    }
  });
});
