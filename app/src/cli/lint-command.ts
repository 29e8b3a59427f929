import type { LintReport } from "../plan/lint-package.ts";
import type { CliIo } from "./cli-io.ts";
import { lintDirectory, printLintResult } from "./lint-directory.ts";

/**
 * `svc lint <dir> [--fix] [--json]`: no network. Exit 0 when clean, 1 on lint errors. `--fix`
 * writes every fixture input's content_hash and size_bytes from its file, whatever was stated
 * (a wrong hash, none, or a placeholder the schema refuses).
 * `--json` prints `{ok, errors, notes, plan, plan_hash}`.
 */
export async function lintCommand(
  dir: string,
  options: { fix?: boolean; json?: boolean },
  io: CliIo,
): Promise<number> {
  let { result } = await lintDirectory(dir);
  if (options.fix) result = await fixFixtureHashes(dir, result, options, io);
  printLintResult(result, io, options);
  return result.ok ? 0 : 1;
}

/** `--fix`: writes the fixture hashes lint found wrong or missing, and lints again. */
async function fixFixtureHashes(
  dir: string,
  linted: LintReport,
  options: { json?: boolean },
  io: CliIo,
): Promise<LintReport> {
  // Loaded here, not with the command: it loads node:fs/promises, which a plain lint never needs.
  const { applyFixtureFixes, clearRefusedFixtureHashes } = await import("../lint/apply-fixture-fixes.ts");
  let result = linted;
  // A placeholder hash the schema refuses is cleared first, so the fix below can compute it.
  if ((await clearRefusedFixtureHashes(dir, result.errors)).length > 0) {
    ({ result } = await lintDirectory(dir));
  }
  if (result.fixes.length > 0) {
    const changed = await applyFixtureFixes(dir, result.fixes);
    if (!options.json) for (const file of changed) io.stderr(`fixed fixture hashes in ${file}\n`);
    ({ result } = await lintDirectory(dir));
  }
  return result;
}
