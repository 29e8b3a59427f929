import { applyFixtureFixes } from "../lint/apply-fixture-fixes.ts";
import type { CliIo } from "./cli-io.ts";
import { lintDirectory, printLintResult } from "./lint-directory.ts";

/**
 * `svc lint <dir> [--fix] [--json]`: no network. Exit 0 when clean, 1 on lint errors.
 * `--json` prints `{ok, errors, notes, plan, plan_hash}`.
 */
export async function lintCommand(
  dir: string,
  options: { fix?: boolean; json?: boolean },
  io: CliIo,
): Promise<number> {
  let { result } = await lintDirectory(dir);
  if (options.fix && result.fixes.length > 0) {
    const changed = await applyFixtureFixes(dir, result.fixes);
    if (!options.json) for (const file of changed) io.stderr(`fixed fixture hashes in ${file}\n`);
    ({ result } = await lintDirectory(dir));
  }
  printLintResult(result, io, options);
  return result.ok ? 0 : 1;
}
