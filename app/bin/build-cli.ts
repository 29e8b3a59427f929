import { rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build, type Plugin } from "esbuild";
import { inlineSchemas } from "../../schemas/src/bundling.ts";
import { standaloneMetaSchema, standaloneValidators } from "../../schemas/src/standalone-validators.ts";

/** The repository root: the bundle's paths are relative to it, whoever builds. */
const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** Where the bundle goes (git-ignored; `npm install` builds it through the root `prepare` script). */
export const CLI_DIST = "app/dist";

/**
 * The files of this repository the bundle was built from, with the build time: app/bin/svc.js
 * runs the bundle only while none of them changed since (else it runs the sources).
 */
export const CLI_INPUTS = `${CLI_DIST}/inputs.json`;

/**
 * Every schema's validator and the author schemas' meta-schema compiled at build time, not at
 * each start (schemas/src/precompiled-validators.ts, precompiled-meta-schema.ts).
 */
const precompileValidators: Plugin = {
  name: "precompile-validators",
  setup(b) {
    const resolveDir = fileURLToPath(new URL("../../schemas/src/", import.meta.url));
    b.onLoad({ filter: /schemas[\\/]src[\\/]precompiled-validators\.ts$/ }, () => ({
      loader: "js",
      contents: standaloneValidators(),
      resolveDir,
    }));
    b.onLoad({ filter: /schemas[\\/]src[\\/]precompiled-meta-schema\.ts$/ }, () => ({
      loader: "js",
      contents: standaloneMetaSchema(),
      resolveDir,
    }));
  },
};

/**
 * Bundles the `svc` command line (app/src/cli/main.ts) into app/dist: plain JavaScript, so no
 * TypeScript is stripped and no module is resolved at start-up, split at each dynamic `import()`
 * so a command loads only its own modules (`svc lint` never loads the MCP client or dockerode).
 * dockerode stays in node_modules: its native helpers (ssh2, cpu-features) cannot be bundled.
 */
export async function buildCli(): Promise<void> {
  const started = Date.now();
  rmSync(new URL("../dist/", import.meta.url), { recursive: true, force: true });
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: { svc: "app/src/cli/main.ts" },
    outdir: CLI_DIST,
    bundle: true,
    splitting: true,
    platform: "node",
    format: "esm",
    target: "node22",
    charset: "utf8",
    legalComments: "none",
    logLevel: "warning",
    metafile: true,
    // CommonJS dependencies call require(); an ES module has none.
    banner: {
      js: 'import { createRequire as __svcCreateRequire } from "node:module";\nconst require = __svcCreateRequire(import.meta.url);',
    },
    external: ["dockerode"],
    plugins: [inlineSchemas, precompileValidators],
  });
  const inputs = Object.keys(result.metafile.inputs)
    .filter((path) => !path.includes("node_modules/"))
    .sort();
  writeFileSync(
    new URL(`../../${CLI_INPUTS}`, import.meta.url),
    JSON.stringify({ built_at: started, inputs }),
  );
}

if (import.meta.main) await buildCli();
