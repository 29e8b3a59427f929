import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative, sep } from "node:path";
import ts from "typescript";

/**
 * The import graph of the source tree, read with TypeScript's own pre-processor (static imports,
 * `import type`, re-exports and dynamic `import()` alike), and the rules the layout keeps:
 *
 * - packages: `schemas` <- `app` <- `server`, `github-app`, `lint-action`; a package is reached
 *   only through its name and its declared entry, never a deep path;
 * - server rings: `core` imports no domain and no edge; a domain imports no edge;
 * - folders: no cycle between the folders of a package's `src` (no two import each other either).
 *
 * A folder is a top-level folder of `src`, except inside a ring folder (`core/`, `edges/`), where
 * each child is its own folder: `server/src/core/db`, `server/src/edges/http`, `server/src/problems`.
 */

/** One import: the importing file and what it names, both relative to the repository root. */
export interface ImportEdge {
  from: string;
  /** A repository-relative path for a relative import; the bare specifier for a package. */
  to: string;
  /** True when `to` is a package specifier (`@svc/app`, `zod`), not a file. */
  bare: boolean;
}

/** Every `.ts` file under `dir` (repository-relative), skipping node_modules and build output. */
export function sourceFiles(root: string, dir: string): string[] {
  const files: string[] = [];
  const walk = (current: string) => {
    for (const entry of readdirSync(join(root, current), { withFileTypes: true })) {
      if (entry.name === "node_modules" || entry.name === "dist") continue;
      const path = join(current, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".ts")) files.push(path.split(sep).join("/"));
    }
  };
  walk(dir);
  return files.sort();
}

/** The imports of one file's text; `file` is repository-relative. */
export function importsOf(file: string, text: string): ImportEdge[] {
  const { importedFiles } = ts.preProcessFile(text, true, true);
  return importedFiles.map(({ fileName }) => {
    if (!fileName.startsWith(".")) return { from: file, to: fileName, bare: true };
    const to = normalize(join(dirname(file), fileName))
      .split(sep)
      .join("/");
    return { from: file, to, bare: false };
  });
}

/** The imports of every file under the given folders. */
export function readImports(root: string, dirs: readonly string[]): ImportEdge[] {
  return dirs.flatMap((dir) =>
    sourceFiles(root, dir).flatMap((file) => importsOf(file, readFileSync(join(root, file), "utf8"))),
  );
}

const RING_FOLDERS = new Set(["core", "edges"]);

/**
 * The folder a file of `src` belongs to (see the module comment), or null for a file directly in
 * `src` such as `index.ts`.
 */
export function folderOf(src: string, file: string): string | null {
  const rel = relative(src, file).split(sep);
  if (rel[0] === ".." || rel.length < 2) return null;
  if (RING_FOLDERS.has(rel[0]!) && rel.length > 2) return `${rel[0]}/${rel[1]}`;
  return rel[0]!;
}

/** The server ring of a folder of `server/src`. */
export function ringOf(folder: string): "core" | "domain" | "edges" {
  if (folder === "core" || folder.startsWith("core/")) return "core";
  if (folder === "edges" || folder.startsWith("edges/")) return "edges";
  return "domain";
}

/** Folder-level edges of `src`, each with the file imports that make it. */
export function folderGraph(src: string, edges: readonly ImportEdge[]): Map<string, Map<string, string[]>> {
  const graph = new Map<string, Map<string, string[]>>();
  for (const edge of edges) {
    if (edge.bare) continue;
    const from = folderOf(src, edge.from);
    const to = folderOf(src, edge.to);
    if (from === null || to === null || from === to) continue;
    const targets = graph.get(from) ?? new Map<string, string[]>();
    graph.set(from, targets);
    targets.set(to, [...(targets.get(to) ?? []), `${edge.from} -> ${edge.to}`]);
  }
  return graph;
}

/** Strongly connected components of more than one folder: each one is a cycle (Tarjan). */
export function folderCycles(graph: Map<string, Map<string, string[]>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let next = 0;
  const visit = (node: string) => {
    index.set(node, next);
    low.set(node, next);
    next++;
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node)?.keys() ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node)!, index.get(target)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) cycles.push(component.sort());
    }
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return cycles;
}

/** The file imports that point down-to-up across the server's rings. */
export function ringViolations(graph: Map<string, Map<string, string[]>>): string[] {
  const violations: string[] = [];
  for (const [from, targets] of graph) {
    for (const [to, imports] of targets) {
      const outward =
        (ringOf(from) === "core" && ringOf(to) !== "core") ||
        (ringOf(from) === "domain" && ringOf(to) === "edges");
      if (outward) violations.push(...imports);
    }
  }
  return violations.sort();
}

/** A readable account of cycles: each folder pair of a cycle with one import that makes it. */
export function describeCycles(graph: Map<string, Map<string, string[]>>, cycles: string[][]): string[] {
  return cycles.flatMap((cycle) =>
    cycle.flatMap((from) =>
      cycle
        .filter((to) => graph.get(from)?.has(to))
        .map((to) => `${from} -> ${to} (${graph.get(from)!.get(to)![0]})`),
    ),
  );
}
