import { mkdirSync, readdirSync, renameSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { BUILT_VALIDATORS_DIRECTORY } from "../src/built-validators.ts";
import { standaloneMetaSchema, standaloneValidators } from "../src/standalone-validators.ts";

/** The repository root: the record's paths are relative to it. */
const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/**
 * What the validators are made from: every schema file and the folder listing them (a schema
 * added or removed changes the folder), this package's sources (ajv's options, the ceilings, the
 * code generation) and the versions of ajv and ajv-formats.
 */
function validatorInputs(): string[] {
  const under = (folder: string, suffix: string) =>
    readdirSync(`${ROOT}${folder}`)
      .filter((name) => name.endsWith(suffix))
      .map((name) => `${folder}/${name}`);
  return [
    "schemas/json",
    ...under("schemas/json", ".json"),
    "schemas/src",
    ...under("schemas/src", ".ts"),
    "node_modules/ajv/package.json",
    "node_modules/ajv-formats/package.json",
  ].sort();
}

/**
 * `npm run build:validators` (and `npm install`'s prepare): ajv's standalone code of every schema
 * and of the author schemas' meta-schema, as CommonJS in schemas/dist/, with a record of when and
 * from what it was built. The service's processes and validation threads run the sources, and
 * compiled each schema at its first use: about 85 ms of every validation thread's first
 * validation (issue 38). They now load these modules while none of their inputs changed since
 * (built-validators.ts); the `svc` bundle compiles its own copy in (app/bin/build-cli.ts). The
 * Dockerfile runs this too.
 */
export function buildValidators(directory: URL = BUILT_VALIDATORS_DIRECTORY): void {
  const started = Date.now();
  mkdirSync(directory, { recursive: true });
  // Each through a rename, so a process starting meanwhile reads a whole module, and the record
  // last: a module newer than its record is never taken for up to date.
  const write = (file: string, text: string) => {
    const temporary = new URL(`${file}.${process.pid}.tmp`, directory);
    writeFileSync(temporary, text);
    renameSync(temporary, new URL(file, directory));
  };
  write("validators.cjs", standaloneValidators("commonjs"));
  write("meta-schema.cjs", standaloneMetaSchema("commonjs"));
  write("validators.json", JSON.stringify({ built_at: started, inputs: validatorInputs() }));
}

if (import.meta.main) buildValidators();
