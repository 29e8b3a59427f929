import { fileURLToPath } from "node:url";
import { inlineSchemas } from "@svc/schemas/bundling";
import { type BuildOptions, build } from "esbuild";

/** The repository root: the bundle's paths and comments are relative to it, whoever builds. */
const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The committed bundle GitHub runs (action.yml `runs.main`). */
export const BUNDLE_PATH = "lint-action/dist/index.js";

/** The esbuild options of the Action's bundle: one ESM file for node24, every dependency inside. */
export function bundleOptions(): BuildOptions {
  return {
    absWorkingDir: ROOT,
    entryPoints: ["lint-action/src/main.ts"],
    outfile: BUNDLE_PATH,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node24",
    charset: "utf8",
    legalComments: "none",
    logLevel: "warning",
    // CommonJS dependencies call require() for Node's own modules; an ES module has none.
    banner: {
      js: 'import { createRequire as __svcCreateRequire } from "node:module";\nconst require = __svcCreateRequire(import.meta.url);',
    },
    // The Action never runs a checker: @svc/app is side-effect free, so its docker backend is
    // dropped with everything else the Action does not call, but esbuild still resolves the
    // backend's import, and dockerode's native helpers cannot be bundled.
    external: ["dockerode"],
    plugins: [inlineSchemas],
  };
}

/** Builds the bundle; `write: false` returns its text without touching the committed file. */
export async function buildBundle(options: { write: boolean }): Promise<string> {
  const result = await build({ ...bundleOptions(), write: options.write });
  return options.write ? "" : result.outputFiles![0]!.text;
}

if (import.meta.main) await buildBundle({ write: true });
