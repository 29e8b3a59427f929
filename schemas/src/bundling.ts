import { readdirSync } from "node:fs";
import type { Plugin } from "esbuild";

/**
 * For esbuild builds that carry this package (the `svc` bundle, the Action's bundle, the authoring
 * toolkit): `load-schemas.ts` reads `schemas/json/*.schema.json` from disk next to itself, and a
 * bundle has no such folder, so the bundle gets a loader that imports each schema file statically
 * instead (same names, same documents).
 */
export const inlineSchemas: Plugin = {
  name: "inline-schemas",
  setup(b) {
    b.onLoad({ filter: /schemas[\\/]src[\\/]load-schemas\.ts$/ }, () => {
      const files = readdirSync(new URL("../json/", import.meta.url))
        .filter((f) => f.endsWith(".schema.json"))
        .sort();
      const imports = files.map((f, i) => `import s${i} from "../json/${f}";`).join("\n");
      const entries = files
        .map((f, i) => `[${JSON.stringify(f.slice(0, -".schema.json".length))}, s${i}]`)
        .join(", ");
      return {
        loader: "ts",
        contents: `${imports}\nexport const schemaDirectory = new URL("../json/", import.meta.url);\nexport function loadSchemas() { return new Map([${entries}]); }\n`,
      };
    });
  },
};
