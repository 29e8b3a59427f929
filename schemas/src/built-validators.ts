import { readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

/**
 * Where schemas/bin/build-validators.ts puts the validators it compiles ahead of time, as
 * CommonJS (`validators.cjs`, `meta-schema.cjs`), with `validators.json`: when they were built
 * (ms since the epoch) and the files, relative to the repository, they were built from.
 */
export const BUILT_VALIDATORS_DIRECTORY = new URL("../dist/", import.meta.url);

const fresh = new Map<string, boolean>();

/**
 * The export `name` of the built module `file`, while every input is older than the build (a
 * schema edited since is compiled from its file again); undefined when there is none, it is stale
 * or cannot be read. Checking costs a stat per input (about 0.3 ms), once per directory.
 */
export function builtValidators<T>(
  file: string,
  name: string,
  directory: URL = BUILT_VALIDATORS_DIRECTORY,
  root: string = fileURLToPath(new URL("../../", import.meta.url)),
): T | undefined {
  try {
    let upToDate = fresh.get(directory.href);
    if (upToDate === undefined) {
      const record = JSON.parse(readFileSync(new URL("validators.json", directory), "utf8")) as {
        built_at: number;
        inputs: string[];
      };
      upToDate = record.inputs.every((path) => statSync(`${root}${path}`).mtimeMs < record.built_at);
      fresh.set(directory.href, upToDate);
    }
    if (!upToDate) return undefined;
    const exports = createRequire(import.meta.url)(fileURLToPath(new URL(file, directory)));
    return (exports as Record<string, T | undefined>)[name];
  } catch {
    return undefined;
  }
}
