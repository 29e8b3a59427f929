import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const README = readFileSync(join(ROOT, "README.md"), "utf8");

const folders = (dir: string) =>
  readdirSync(join(ROOT, dir), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name);

/** The README row whose first cell names `folder`. */
const rowOf = (folder: string) => README.split("\n").find((line) => line.startsWith(`| \`${folder}\``)) ?? "";

describe("the README's tour of the folders", () => {
  it("names every folder of app/src and every domain folder of server/src", () => {
    const missing = [
      ...folders("app/src").map((name) => `app/src/${name}/`),
      ...folders("server/src")
        .filter((name) => name !== "core" && name !== "edges")
        .map((name) => `server/src/${name}/`),
    ].filter((path) => !README.includes(`\`${path}\``));
    expect(missing).toEqual([]);
  });

  it("names every child of the core and edges rings in that ring's row", () => {
    const missing = ["core", "edges"].flatMap((ring) =>
      folders(`server/src/${ring}`)
        .filter((name) => !rowOf(`server/src/${ring}/`).includes(`\`${name}\``))
        .map((name) => `server/src/${ring}/${name}`),
    );
    expect(missing).toEqual([]);
  });

  it("names every top-level folder of the repository", () => {
    // Not source: installed, local data, and what test runs leave (page screenshots).
    const ignored = new Set(["node_modules", ".git", ".svc-data", "test-results"]);
    const missing = folders(".")
      .filter((name) => !ignored.has(name) && !name.startsWith("."))
      .filter((name) => !README.includes(`\`${name}/`));
    expect(missing).toEqual([]);
  });
});
