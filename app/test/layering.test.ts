import { readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { describe, expect, it } from "vitest";

const SRC = new URL("../src/", import.meta.url).pathname;
const INDEX = readFileSync(join(SRC, "index.ts"), "utf8");

/** The layers, low to high, as the comment at the top of src/index.ts lists them: "  name   what". */
const layers = [...INDEX.matchAll(/^ \* {3}([a-z]+) {2,}\S/gm)].map((m) => m[1]!);

/** Every .ts file under src/, relative to it, '/'-separated. */
function sourceFiles(dir = SRC): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [relative(SRC, path).split(sep).join("/")] : [];
  });
}

/** The app folders a file imports from, static, dynamic or re-exported. */
function importedFolders(file: string): string[] {
  const text = readFileSync(join(SRC, file), "utf8");
  const specifiers = [...text.matchAll(/(?:from|import\(?)\s*"(\.\.\/[^"]+)"/g)].map((m) => m[1]!);
  return specifiers.map((s) => s.split("/")[1]!);
}

const files = sourceFiles().filter((f) => f.includes("/"));

describe("app/src layering", () => {
  it("reads the layer list from the comment at the top of src/index.ts", () => {
    expect(layers.slice(0, 5)).toEqual(["hash", "catalogue", "tree", "lint", "plan"]);
    expect(layers.at(-1)).toBe("cli");
  });

  it("places every folder of src/ in a layer", () => {
    const folders = new Set(files.map((f) => f.split("/")[0]!));
    expect([...folders].filter((folder) => !layers.includes(folder))).toEqual([]);
  });

  it("lets a folder import only folders of lower layers, so no two folders import each other (lint never imports plan)", () => {
    const upward = files.flatMap((file) => {
      const own = layers.indexOf(file.split("/")[0]!);
      return importedFolders(file)
        .filter((folder) => layers.indexOf(folder) > own)
        .map((folder) => `${file} imports ${folder}/`);
    });
    expect(upward).toEqual([]);
  });

  it("exports an explicit list of names from src/index.ts, never export *", () => {
    expect(INDEX).not.toMatch(/export \*/);
  });
});
