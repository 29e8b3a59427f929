import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { LintRecord } from "@svc/schemas";
import type { FixtureFix } from "./lint-context.ts";

/**
 * `svc lint --fix`: writes each fixture input's content_hash and size_bytes from the file it
 * names. Only fixture inputs are ever touched: a link binding's hash is the author's statement
 * and is never rewritten. Returns the files that changed.
 */
export async function applyFixtureFixes(dir: string, fixes: readonly FixtureFix[]): Promise<string[]> {
  const byFile = new Map<string, FixtureFix[]>();
  for (const fix of fixes) byFile.set(fix.file, [...(byFile.get(fix.file) ?? []), fix]);
  const changed: string[] = [];
  for (const [file, list] of byFile) {
    const path = join(dir, file);
    const before = await readFile(path, "utf8");
    const document: unknown = JSON.parse(before.replace(/^\uFEFF/, ""));
    for (const fix of list) {
      const input = resolvePointer(document, fix.path);
      if (input && typeof input === "object") {
        Object.assign(input, { content_hash: fix.content_hash, size_bytes: fix.size_bytes });
      }
    }
    const after = `${JSON.stringify(document, null, 2)}\n`;
    if (after !== before) {
      await writeFile(path, after);
      changed.push(file);
    }
  }
  return changed;
}

/** A fixture input's stated hash or size, as a JSON Pointer into its contract. */
const FIXTURE_HASH =
  /^(\/conformance_fixtures\/\d+\/inputs\/(?:artifacts\/\d+|reference\/[^/]+))\/(?:content_hash|size_bytes)$/;

/**
 * `svc lint --fix`, first step: a fixture input whose stated content_hash or size_bytes the schema
 * refuses (a placeholder such as `"sha256:0"`) keeps its contract from being read at all, so no
 * fix could be computed for it; both are removed, and the lint that follows computes them from
 * the file like any unstated hash. Returns the files that changed.
 */
export async function clearRefusedFixtureHashes(
  dir: string,
  errors: readonly LintRecord[],
): Promise<string[]> {
  const byFile = new Map<string, Set<string>>();
  for (const e of errors) {
    const input = e.code === "schema_violation" ? FIXTURE_HASH.exec(e.path)?.[1] : undefined;
    if (input) byFile.set(e.file, (byFile.get(e.file) ?? new Set()).add(input));
  }
  const changed: string[] = [];
  for (const [file, inputs] of byFile) {
    const path = join(dir, file);
    const document: unknown = JSON.parse((await readFile(path, "utf8")).replace(/^\uFEFF/, ""));
    for (const at of inputs) {
      const input = resolvePointer(document, at);
      if (input && typeof input === "object") {
        delete (input as Record<string, unknown>).content_hash;
        delete (input as Record<string, unknown>).size_bytes;
      }
    }
    await writeFile(path, `${JSON.stringify(document, null, 2)}\n`);
    changed.push(file);
  }
  return changed;
}

function resolvePointer(document: unknown, pointer: string): unknown {
  let node = document;
  for (const raw of pointer.split("/").slice(1)) {
    const key = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    if (node === null || typeof node !== "object") return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}
