import { type LintReport, lintPackage } from "../plan/lint-package.ts";
import { type FileTree, TreeError } from "../tree/file-tree.ts";
import { openDirectoryTree } from "../tree/open-directory-tree.ts";
import { readOnceTree } from "../tree/read-once-tree.ts";
import { type CliIo, UsageError } from "./cli-io.ts";
import { formatReport } from "./format-report.ts";

/**
 * Opens and lints the package in `dir`, as every command that reads a package does. A missing
 * directory is a usage error; a tree that cannot be a package (a symlink inside it, say) is
 * reported as lint would report it, with no tree. `readOnce`: the tree returned keeps the bytes
 * lint read (readOnceTree), for a command that packs them next.
 */
export async function lintDirectory(
  dir: string,
  options: { readOnce?: boolean } = {},
): Promise<{ tree: FileTree | null; result: LintReport }> {
  try {
    const opened = await openDirectoryTree(dir);
    const tree = options.readOnce ? readOnceTree(opened) : opened;
    return { tree, result: await lintPackage(tree) };
  } catch (error) {
    if (!(error instanceof TreeError)) throw error;
    if (error.code === "not_found" || error.code === "not_a_directory") throw new UsageError(error.message);
    const record = {
      file: error.entry ?? ".",
      path: "",
      code: "unknown_file" as const,
      message: error.message,
    };
    return {
      tree: null,
      result: { ok: false, errors: [record], notes: [], plan: null, plan_hash: null, fixes: [] },
    };
  }
}

/** Prints a lint result as `svc lint` does: `{ok, errors, notes, plan, plan_hash}` on `--json`, else the report. */
export function printLintResult(result: LintReport, io: CliIo, options: { json?: boolean }): void {
  if (options.json) {
    const { ok, errors, notes, plan, plan_hash } = result;
    io.stdout(`${JSON.stringify({ ok, errors, notes, plan, plan_hash }, null, 2)}\n`);
  } else {
    io.stdout(formatReport(result, { color: io.color }));
  }
}
