import { applyFixtureFixes } from "../lint/apply-fixture-fixes.ts";
import { type LintResult, lintPackage } from "../lint/lint-package.ts";
import { TreeError } from "../tree/file-tree.ts";
import { openDirectoryTree } from "../tree/open-directory-tree.ts";
import type { CliIo } from "./cli-io.ts";
import { UsageError } from "./cli-io.ts";
import { formatReport } from "./format-report.ts";

/**
 * `svc lint <dir> [--fix] [--json]`: no network. Exit 0 when clean, 1 on lint errors.
 * `--json` prints `{ok, errors, notes, plan, plan_hash}`.
 */
export async function lintCommand(
  dir: string,
  options: { fix?: boolean; json?: boolean },
  io: CliIo,
): Promise<number> {
  let result = await lintDirectory(dir);
  if (options.fix && result.fixes.length > 0) {
    const changed = await applyFixtureFixes(dir, result.fixes);
    if (!options.json) for (const file of changed) io.stderr(`fixed fixture hashes in ${file}\n`);
    result = await lintDirectory(dir);
  }
  if (options.json) {
    const { ok, errors, notes, plan, plan_hash } = result;
    io.stdout(`${JSON.stringify({ ok, errors, notes, plan, plan_hash }, null, 2)}\n`);
  } else {
    io.stdout(formatReport(result, { color: io.color }));
  }
  return result.ok ? 0 : 1;
}

async function lintDirectory(dir: string): Promise<LintResult> {
  try {
    return await lintPackage(await openDirectoryTree(dir));
  } catch (error) {
    if (!(error instanceof TreeError)) throw error;
    if (error.code === "not_found" || error.code === "not_a_directory") throw new UsageError(error.message);
    // The tree itself cannot be a package (a symlink inside it, say): report it like lint would.
    const record = {
      file: error.entry ?? ".",
      path: "",
      code: "unknown_file" as const,
      message: error.message,
    };
    return { ok: false, errors: [record], notes: [], plan: null, plan_hash: null, fixes: [] };
  }
}
