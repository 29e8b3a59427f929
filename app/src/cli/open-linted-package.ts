import { type LintResult, lintPackage } from "../lint/lint-package.ts";
import { type FileTree, TreeError } from "../tree/file-tree.ts";
import { openDirectoryTree } from "../tree/open-directory-tree.ts";
import { type CliIo, UsageError } from "./cli-io.ts";
import { formatReport } from "./format-report.ts";

/**
 * Opens and lints a package before anything is sent (spec 4.2: lint once, errors stop). Lint
 * errors are printed as `svc lint` prints them (its JSON on `--json`) and give null; a missing
 * directory is a usage error.
 */
export async function openLintedPackage(
  dir: string,
  io: CliIo,
  options: { json?: boolean },
): Promise<{
  tree: FileTree;
  lint: LintResult & { plan: NonNullable<LintResult["plan"]>; plan_hash: string };
} | null> {
  let tree: FileTree;
  let lint: LintResult;
  try {
    tree = await openDirectoryTree(dir);
    lint = await lintPackage(tree);
  } catch (error) {
    if (!(error instanceof TreeError)) throw error;
    if (error.code === "not_found" || error.code === "not_a_directory") throw new UsageError(error.message);
    const record = {
      file: error.entry ?? ".",
      path: "",
      code: "unknown_file" as const,
      message: error.message,
    };
    lint = { ok: false, errors: [record], notes: [], plan: null, plan_hash: null, fixes: [] };
    printLint(lint, io, options);
    return null;
  }
  if (!lint.ok || lint.plan === null || lint.plan_hash === null) {
    printLint(lint, io, options);
    return null;
  }
  return { tree, lint: lint as LintResult & { plan: NonNullable<LintResult["plan"]>; plan_hash: string } };
}

function printLint(lint: LintResult, io: CliIo, options: { json?: boolean }): void {
  if (options.json) {
    const { ok, errors, notes, plan, plan_hash } = lint;
    io.stdout(`${JSON.stringify({ ok, errors, notes, plan, plan_hash }, null, 2)}\n`);
  } else {
    io.stdout(formatReport(lint, { color: io.color }));
  }
  io.stderr("svc: lint found errors; nothing was uploaded\n");
}
