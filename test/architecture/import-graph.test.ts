import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  describeCycles,
  folderCycles,
  folderGraph,
  folderOf,
  type ImportEdge,
  importsOf,
  readImports,
  ringViolations,
} from "./import-graph.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** Edges between files of a synthetic `src`, one `from>to` pair each. */
function edges(...pairs: string[]): ImportEdge[] {
  return pairs.map((pair) => {
    const [from, to] = pair.split(">") as [string, string];
    return { from: `server/src/${from}`, to: `server/src/${to}`, bare: false };
  });
}

describe("the import-graph rules", () => {
  it("reads static, type-only, re-exported and dynamic imports alike", () => {
    const text = [
      'import { a } from "./a.ts";',
      'import type { B } from "../b/b.ts";',
      'export { c } from "./c.ts";',
      'const d = await import("../../core/d.ts");',
      'import { z } from "zod";',
    ].join("\n");
    expect(importsOf("server/src/problems/x/file.ts", text)).toEqual([
      { from: "server/src/problems/x/file.ts", to: "server/src/problems/x/a.ts", bare: false },
      { from: "server/src/problems/x/file.ts", to: "server/src/problems/b/b.ts", bare: false },
      { from: "server/src/problems/x/file.ts", to: "server/src/problems/x/c.ts", bare: false },
      { from: "server/src/problems/x/file.ts", to: "server/src/core/d.ts", bare: false },
      { from: "server/src/problems/x/file.ts", to: "zod", bare: true },
    ]);
  });

  it("treats each child of a ring folder as a folder of its own, and a nested domain folder as its domain", () => {
    expect(folderOf("server/src", "server/src/core/db/migrate.ts")).toBe("core/db");
    expect(folderOf("server/src", "server/src/edges/mcp/tools/tool.ts")).toBe("edges/mcp");
    expect(folderOf("server/src", "server/src/reviews/reduce/reduce-k-of-n.ts")).toBe("reviews");
    expect(folderOf("server/src", "server/src/index.ts")).toBeNull();
  });

  it("finds a cycle through three folders, and none in a chain", () => {
    const cyclic = folderGraph("server/src", edges("a/x.ts>b/y.ts", "b/y.ts>c/z.ts", "c/z.ts>a/x.ts"));
    expect(folderCycles(cyclic)).toEqual([["a", "b", "c"]]);
    const chain = folderGraph("server/src", edges("a/x.ts>b/y.ts", "b/y.ts>c/z.ts", "a/x.ts>c/z.ts"));
    expect(folderCycles(chain)).toEqual([]);
  });

  it("flags a domain importing an edge and core importing a domain, but not an edge importing a domain", () => {
    const graph = folderGraph(
      "server/src",
      edges(
        "problems/p.ts>edges/http/route.ts",
        "core/db/q.ts>problems/p.ts",
        "edges/mcp/tool.ts>problems/p.ts",
        "problems/p.ts>core/db/q.ts",
      ),
    );
    expect(ringViolations(graph)).toEqual([
      "server/src/core/db/q.ts -> server/src/problems/p.ts",
      "server/src/problems/p.ts -> server/src/edges/http/route.ts",
    ]);
  });
});

describe("the repository's import graph", () => {
  const server = folderGraph("server/src", readImports(ROOT, ["server/src"]));

  it("keeps the server's rings: core imports no domain, no domain imports an edge", () => {
    expect(ringViolations(server)).toEqual([]);
  });

  it("has no cycle between the server's folders", () => {
    expect(describeCycles(server, folderCycles(server))).toEqual([]);
  });

  it("keeps each package's relative imports inside its own folder", () => {
    const packages = ["schemas/src", "app/src", "server/src", "github-app/src", "lint-action/src"];
    const escapes = readImports(ROOT, packages)
      .filter((edge) => !edge.bare)
      .filter((edge) => {
        const home = packages.find((dir) => edge.from.startsWith(`${dir}/`))!;
        return !edge.to.startsWith(`${home.split("/")[0]}/`);
      })
      .map((edge) => `${edge.from} -> ${edge.to}`);
    expect(escapes).toEqual([]);
  });

  it("lets packages depend one way: schemas <- app <- server, github-app, lint-action", () => {
    const allowed: Record<string, string[]> = {
      "schemas/src": [],
      "app/src": ["@svc/schemas"],
      "server/src": ["@svc/schemas", "@svc/app"],
      "github-app/src": ["@svc/schemas", "@svc/app"],
      "lint-action/src": ["@svc/schemas", "@svc/app"],
    };
    const wrong = Object.entries(allowed).flatMap(([dir, names]) =>
      readImports(ROOT, [dir])
        .filter((edge) => edge.bare && edge.to.startsWith("@svc/"))
        .filter((edge) => !names.some((name) => edge.to === name || edge.to.startsWith(`${name}/`)))
        .map((edge) => `${edge.from} -> ${edge.to}`),
    );
    expect(wrong).toEqual([]);
  });

  it("reaches app only through its entries (the whole, or the authoring core), never a deep path", () => {
    const entries = new Set(["@svc/app/authoring-core"]);
    const deep = readImports(ROOT, ["server", "github-app", "lint-action", "test", "bench"])
      .filter(
        (edge) =>
          (edge.bare && edge.to.startsWith("@svc/app/") && !entries.has(edge.to)) ||
          (!edge.bare && edge.to.startsWith("app/src/")),
      )
      .map((edge) => `${edge.from} -> ${edge.to}`);
    expect(deep).toEqual([]);
  });
});
