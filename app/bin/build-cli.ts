import { createHash } from "node:crypto";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
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
 * The precompiled validators count string lengths with schemas/src/ucs2length.ts, ajv's count
 * (a property test compares them) without walking every character of every string in JavaScript.
 */
const fastUcs2length: Plugin = {
  name: "fast-ucs2length",
  setup(b) {
    b.onResolve({ filter: /^ajv\/dist\/runtime\/ucs2length(\.js)?$/ }, () => ({
      path: fileURLToPath(new URL("../../schemas/src/ucs2length.ts", import.meta.url)),
    }));
  },
};

/**
 * commander requires node:child_process (with net, dgram and their bindings) when it loads, for
 * executable subcommands, which svc has none of: it gets the module on first use instead.
 */
const lazyChildProcess: Plugin = {
  name: "lazy-child-process",
  setup(b) {
    b.onResolve({ filter: /^node:child_process$/ }, (args) =>
      /[\\/]node_modules[\\/]commander[\\/]/.test(args.importer)
        ? { path: "child_process", namespace: "svc-lazy" }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: "svc-lazy" }, () => ({
      loader: "js",
      contents:
        'let loaded;\nmodule.exports = new Proxy({}, { get: (_, key) => (loaded ??= require("node:child_process"))[key] });\n',
    }));
  },
};

/** The bundle's file: CommonJS, so app/bin/svc.js can load it as a `vm.Script` with a code cache. */
export const CLI_BUNDLE = `${CLI_DIST}/svc.cjs`;

/**
 * Bundles the `svc` command line (app/src/cli/main.ts) into one CommonJS file, app/dist/svc.cjs:
 * plain JavaScript, so no TypeScript is stripped and no module is resolved at start-up. Each
 * command's modules are still initialised only when it runs (every dynamic `import()` becomes a
 * lazy module initialiser): `svc lint` never runs the MCP client's or dockerode's code.
 *
 * CommonJS rather than ES modules because app/bin/svc.js compiles it as a `vm.Script`, whose code
 * cache V8 writes after a command ran and so holds every function it compiled; Node's compile
 * cache of ES modules holds only what was compiled before they ran (about a tenth of it), and
 * compiling the rest at each start was a sixth of `svc lint`'s time (issue 38). `"use strict"`
 * keeps the modules' strict semantics. dockerode stays in node_modules: its native helpers
 * (ssh2, cpu-features) cannot be bundled.
 */
export async function buildCli(): Promise<void> {
  const started = Date.now();
  rmSync(new URL("../dist/", import.meta.url), { recursive: true, force: true });
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: ["app/src/cli/main.ts"],
    outfile: CLI_BUNDLE,
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node22",
    // ASCII (esbuild escapes the rest), so svc.js reads it as Latin-1: no UTF-8 decoding, and V8
    // keeps one byte a character.
    charset: "ascii",
    legalComments: "none",
    logLevel: "warning",
    metafile: true,
    // `import.meta.url` (its one use names the schemas' directory) is the bundle's own URL.
    banner: {
      js: '"use strict";\nconst __svcBundleUrl = require("node:url").pathToFileURL(__filename).href;',
    },
    define: { "import.meta.url": "__svcBundleUrl" },
    external: ["dockerode"],
    plugins: [inlineSchemas, precompileValidators, fastUcs2length, lazyChildProcess],
  });
  const inputs = Object.keys(result.metafile.inputs)
    // Files of this repository only (not the plugins' virtual modules, named `namespace:path`).
    .filter((path) => !path.includes("node_modules/") && !path.includes(":"))
    .sort();
  const bundle = readFileSync(new URL(`../../${CLI_BUNDLE}`, import.meta.url));
  writeFileSync(
    new URL(`../../${CLI_INPUTS}`, import.meta.url),
    JSON.stringify({ built_at: started, bundle_sha256: sha256Hex(bundle), inputs }),
  );
}

const sha256Hex = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

if (import.meta.main) await buildCli();
