import type { LintReport } from "../plan/lint-package.ts";
import type { FileTree } from "../tree/file-tree.ts";
import type { CliIo } from "./cli-io.ts";
import { lintDirectory, printLintResult } from "./lint-directory.ts";

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
  lint: LintReport & { plan: NonNullable<LintReport["plan"]>; plan_hash: string };
} | null> {
  // The archive is packed from the bytes lint read, not read again.
  const { tree, result } = await lintDirectory(dir, { readOnce: true });
  if (tree === null || !result.ok || result.plan === null || result.plan_hash === null) {
    printLintResult(result, io, options);
    io.stderr("svc: lint found errors; nothing was uploaded\n");
    return null;
  }
  return { tree, lint: { ...result, plan: result.plan, plan_hash: result.plan_hash } };
}
