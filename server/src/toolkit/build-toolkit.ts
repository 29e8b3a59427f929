import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { inlineSchemas } from "@svc/schemas/bundling";
import type { BuildOptions } from "esbuild";

/** The repository root: the bundle's paths are relative to it, whoever builds. */
const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/** The version the toolkit reports: the `@svc/app` package's, whose command line it carries. */
export const TOOLKIT_VERSION: string = (
  JSON.parse(readFileSync(new URL("../../../app/package.json", import.meta.url), "utf8")) as {
    version: string;
  }
).version;

/**
 * The esbuild options of the authoring toolkit: the `svc` command line (what app/bin/svc.js runs)
 * as one ESM file with every dependency inside, so it runs on a recent Node with nothing installed.
 * Native helpers that ssh2 (under dockerode) loads inside try/catch stay outside: without them it
 * falls back to plain JavaScript.
 */
export function toolkitOptions(): BuildOptions {
  return {
    absWorkingDir: ROOT,
    // app/bin/svc.js picks the repository's own bundle or the sources; the toolkit is neither.
    stdin: {
      contents:
        'import { runCli } from "./app/src/cli/main.ts";\nprocess.exitCode = await runCli(process.argv.slice(2));\n',
      resolveDir: ROOT,
      sourcefile: "svc.mjs",
      loader: "ts",
    },
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node22",
    charset: "utf8",
    legalComments: "none",
    logLevel: "silent",
    banner: {
      // CommonJS dependencies call require() and read __dirname and __filename; an ES module has none.
      js: [
        'import { createRequire as __svcCreateRequire } from "node:module";',
        "const require = __svcCreateRequire(import.meta.url);",
        "const __filename = import.meta.filename;",
        "const __dirname = import.meta.dirname;",
      ].join("\n"),
    },
    external: ["cpu-features", "*.node"],
    plugins: [inlineSchemas],
  };
}

/**
 * Builds the toolkit in memory and returns its bytes. esbuild is loaded only here, when a toolkit
 * is first asked for, so serving anything else never needs it.
 */
export async function buildToolkit(): Promise<Uint8Array> {
  const { build } = await import("esbuild");
  const result = await build({ ...toolkitOptions(), write: false, outfile: "svc.mjs" });
  return result.outputFiles![0]!.contents;
}
