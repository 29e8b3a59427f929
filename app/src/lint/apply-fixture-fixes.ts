import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
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

function resolvePointer(document: unknown, pointer: string): unknown {
  let node = document;
  for (const raw of pointer.split("/").slice(1)) {
    const key = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    if (node === null || typeof node !== "object") return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}
