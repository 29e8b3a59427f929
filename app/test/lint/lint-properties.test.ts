import { readdirSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { lintPackage } from "../../src/plan/lint-package.ts";
import type { FileTree } from "../../src/tree/file-tree.ts";
import { memoryTree } from "../../src/tree/memory-tree.ts";
import { openDirectoryTree } from "../../src/tree/open-directory-tree.ts";
import { openZipTree } from "../../src/tree/open-zip-tree.ts";
import { zipTree } from "../../src/tree/zip-tree.ts";

const root = new URL("../fixtures/lint/", import.meta.url).pathname;
const NOW = new Date("2026-11-22T00:00:00Z");
const VALID = readdirSync(root).filter((name) => name.startsWith("valid-") && !name.endsWith(".json"));

async function filesOf(name: string): Promise<Record<string, Uint8Array>> {
  const tree = await openDirectoryTree(join(root, name));
  const files: Record<string, Uint8Array> = {};
  for (const path of tree.paths()) files[path] = await tree.read(path);
  return files;
}

/** A tree that lists its paths in the given order, as a careless source might. */
function shuffledTree(tree: FileTree, order: readonly number[]): FileTree {
  const paths = [...tree.paths()];
  const shuffled = order.map((i) => paths[i % paths.length]!).filter((p, i, all) => all.indexOf(p) === i);
  for (const p of paths) if (!shuffled.includes(p)) shuffled.push(p);
  return { paths: () => shuffled, size: (p) => tree.size(p), read: (p) => tree.read(p) };
}

/** Rewrites JSON with other whitespace and another key order: the same document. */
function reformat(value: unknown, seed: number, indent: number): string {
  const reorder = (v: unknown, depth: number): unknown => {
    if (Array.isArray(v)) return v.map((x) => reorder(x, depth + 1));
    if (v && typeof v === "object") {
      const entries = Object.entries(v);
      if ((seed + depth) % 2 === 0) entries.reverse();
      return Object.fromEntries(entries.map(([k, x]) => [k, reorder(x, depth + 1)]));
    }
    return v;
  };
  return JSON.stringify(reorder(value, 0), null, indent) + "\n".repeat(seed % 3);
}

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

describe("plan_hash", () => {
  it.each(VALID)("of %s is the same from the directory and from a ZIP of it", async (name) => {
    const dir = await openDirectoryTree(join(root, name));
    const fromDir = await lintPackage(dir, { now: NOW });
    const fromZip = await lintPackage(await openZipTree(await zipTree(dir)), { now: NOW });
    expect(fromDir.ok).toBe(true);
    expect(fromZip.plan_hash).toBe(fromDir.plan_hash);
  });

  it("does not change with file enumeration order, JSON whitespace or key order", async () => {
    const packages = await Promise.all(VALID.map(async (name) => ({ name, files: await filesOf(name) })));
    const baseline = new Map<string, string | null>();
    for (const { name, files } of packages) {
      baseline.set(name, (await lintPackage(memoryTree(files), { now: NOW })).plan_hash);
    }
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...packages),
        fc.array(fc.nat(), { maxLength: 40 }),
        fc.nat(),
        fc.integer({ min: 0, max: 8 }),
        async ({ name, files }, order, seed, indent) => {
          const rewritten: Record<string, Uint8Array | string> = {};
          for (const [path, bytes] of Object.entries(files)) {
            rewritten[path] = path.endsWith(".json")
              ? reformat(JSON.parse(text(bytes)), seed, indent)
              : bytes;
          }
          const result = await lintPackage(shuffledTree(memoryTree(rewritten), order), { now: NOW });
          expect(result.plan_hash).toBe(baseline.get(name));
        },
      ),
      { numRuns: 60 },
    );
  });

  it("changes with any semantic change to a problem, a checker, a fixture-free reference or a protocol", async () => {
    const script = await filesOf("valid-script");
    const sat = await filesOf("valid-builtin-sat");
    const review = await filesOf("valid-review");
    const hash = async (files: Record<string, Uint8Array | string>) =>
      (await lintPackage(memoryTree(files), { now: NOW })).plan_hash;
    const edit = (
      files: Record<string, Uint8Array>,
      path: string,
      change: (v: Record<string, unknown>) => void,
    ) => {
      const value = JSON.parse(text(files[path]!));
      change(value);
      return { ...files, [path]: JSON.stringify(value) };
    };
    const variants = [
      { ...script, "statement.md": `${text(script["statement.md"]!)}One more sentence.\n` },
      { ...script, "checker.py": `${text(script["checker.py"]!)}# a comment is a new program\n` },
      edit(script, "problem.json", (v) => (v.title = "Another title")),
      edit(script, "problem.json", (v) => (v.priority_weight = 0.75)),
      edit(script, "problem.json", (v) => (v.revision_note = "Clarified the statement.")),
      edit(script, "verifier-contract.json", (v) => (v.title = "Another contract title")),
    ];
    const base = await hash(script);
    const hashes = await Promise.all(variants.map(hash));
    for (const h of hashes) {
      expect(h).toMatch(/^sha256:/);
      expect(h).not.toBe(base);
    }
    expect(new Set(hashes).size).toBe(hashes.length);

    const satBase = await hash(sat);
    const satChanged = await hash({ ...sat, "reference/instance.cnf": "p cnf 3 2\n1 -2 0\n2 -3 0\n" });
    expect(satChanged).not.toBe(satBase);

    const reviewBase = await hash(review);
    const reviewChanged = await hash(
      edit(
        review,
        "review-protocol.json",
        (v) => ((v.policy as Record<string, number>).assignment_timeout_hours = 48),
      ),
    );
    expect(reviewChanged).not.toBe(reviewBase);
  });

  it("is the same whether a default is written out or left implicit", async () => {
    const script = await filesOf("valid-script");
    const problem = JSON.parse(text(script["problem.json"]!));
    delete problem.structure;
    delete problem.priority_weight;
    const implicit = await lintPackage(memoryTree({ ...script, "problem.json": JSON.stringify(problem) }), {
      now: NOW,
    });
    const explicit = await lintPackage(memoryTree(script), { now: NOW });
    expect(implicit.plan_hash).toBe(explicit.plan_hash);
  });
});

describe("lint on hostile input", () => {
  const names = [
    "problem.json",
    "campaign.json",
    "statement.md",
    "verifier-contract.json",
    "review-protocol.json",
    "checker.py",
    "reference/instance.cnf",
    "reference/instance.link.json",
    "fixtures/good.txt",
    "skills/a/SKILL.md",
    "problems/p/problem.json",
    "problems/p/statement.md",
    "problems/p/verifier-contract.json",
  ];
  const content = fc.oneof(
    fc.jsonValue().map((v) => JSON.stringify(v)),
    fc.string(),
    fc.constant("---\nname: a\ndescription: x\n---\n"),
  );

  it("never throws on arbitrary trees of arbitrary files", async () => {
    await fc.assert(
      fc.asyncProperty(fc.dictionary(fc.constantFrom(...names), content, { maxKeys: 8 }), async (files) => {
        const result = await lintPackage(memoryTree(files), { now: NOW });
        expect(result.ok).toBe(result.errors.length === 0);
      }),
      { numRuns: 300 },
    );
  });

  it("never throws when any JSON value of a valid package is replaced by arbitrary JSON", async () => {
    const packages = await Promise.all(VALID.map((name) => filesOf(name)));
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...packages),
        fc.nat(),
        fc.nat(),
        fc.jsonValue(),
        async (files, f, n, value) => {
          const jsonFiles = Object.keys(files).filter((p) => p.endsWith(".json"));
          const path = jsonFiles[f % jsonFiles.length]!;
          const document = JSON.parse(text(files[path]!));
          replaceNth(document, n, value);
          const result = await lintPackage(memoryTree({ ...files, [path]: JSON.stringify(document) }), {
            now: NOW,
          });
          expect(result.ok).toBe(result.errors.length === 0);
          for (const e of result.errors) expect(e.path === "" || e.path.startsWith("/")).toBe(true);
        },
      ),
      { numRuns: 400 },
    );
  });
});

/** Replaces the n-th value (depth-first, modulo the count) inside a document. */
function replaceNth(document: unknown, n: number, value: unknown): void {
  const slots: Array<[Record<string, unknown> | unknown[], string | number]> = [];
  const walk = (node: unknown) => {
    if (Array.isArray(node)) {
      node.forEach((child, i) => {
        slots.push([node, i]);
        walk(child);
      });
    } else if (node && typeof node === "object") {
      for (const [k, child] of Object.entries(node)) {
        slots.push([node as Record<string, unknown>, k]);
        walk(child);
      }
    }
  };
  walk(document);
  if (slots.length === 0) return;
  const [parent, key] = slots[n % slots.length]!;
  (parent as Record<string | number, unknown>)[key] = value;
}

describe("lint reports every independent defect in one run", () => {
  /**
   * Defects of valid-skill in files no other defect's check reads (a fixture file's hash is checked
   * through the contract, so a broken contract is not among them: that would be a cascade).
   */
  const enc = (s: string) => new TextEncoder().encode(s);
  const json = (files: Record<string, Uint8Array>, path: string, edit: (v: Record<string, any>) => void) => {
    const value = JSON.parse(text(files[path]!));
    edit(value);
    return { [path]: enc(JSON.stringify(value, null, 2)) };
  };
  const DEFECTS: Array<[string, (files: Record<string, Uint8Array>) => Record<string, Uint8Array>]> = [
    ["problem.json breaks its schema", (f) => json(f, "problem.json", (v) => (v.priority_weight = "high"))],
    ["problem.json has an unknown key", (f) => json(f, "problem.json", (v) => (v.colour = "blue"))],
    ["statement.md is empty", () => ({ "statement.md": enc("  \n") })],
    ["SKILL.md has no frontmatter", () => ({ "skills/sat-basics/SKILL.md": enc("# no frontmatter\n") })],
    ["a fixture file changed", () => ({ "fixtures/good.txt": enc("v 1 -2 3 0\n") })],
  ];

  it("gives, for defects in independent files together, exactly the errors each gives alone (property)", async () => {
    const files = await filesOf("valid-skill");
    const errorsOf = async (defects: typeof DEFECTS) => {
      let broken = { ...files };
      for (const [, apply] of defects) broken = { ...broken, ...apply(broken) };
      const result = await lintPackage(memoryTree(broken), { now: NOW });
      return new Set(result.errors.map((e) => JSON.stringify([e.file, e.path, e.code])));
    };
    const alone = new Map<string, Set<string>>();
    for (const defect of DEFECTS) {
      const errors = await errorsOf([defect]);
      expect(errors.size, defect[0]).toBeGreaterThan(0);
      alone.set(defect[0], errors);
    }
    await fc.assert(
      fc.asyncProperty(fc.subarray(DEFECTS, { minLength: 1 }), async (defects) => {
        const together = await errorsOf(defects);
        const union = new Set(defects.flatMap(([name]) => [...alone.get(name)!]));
        expect([...together].sort()).toEqual([...union].sort());
      }),
      { numRuns: 64 },
    );
  });
});
