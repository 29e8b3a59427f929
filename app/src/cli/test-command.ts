import type { RuntimeBackend } from "@svc/schemas";
import pc from "picocolors";
import { type DetectedSandbox, detectSandbox } from "../sandbox/detect-sandbox.ts";
import { runChecker } from "../sandbox/run-checker.ts";
import type { FixtureResult } from "../sandbox/run-conformance.ts";
import type { CliIo } from "./cli-io.ts";
import { UsageError } from "./cli-io.ts";
import { formatFixtureFailure } from "./format-fixture-failure.ts";
import { lintDirectory, printLintResult } from "./lint-directory.ts";
import { runPackageConformance } from "./package-conformance.ts";

export interface TestOptions {
  json?: boolean;
  /** Docker image realising svc-runtime/python:1 (else SVC_PYTHON_IMAGE). */
  image?: string;
  /** Force a backend: bwrap or docker (else SVC_SANDBOX, else detected). */
  sandbox?: string;
}

/**
 * `svc test <dir> [--json] [--image <ref>] [--sandbox bwrap|docker]`: lints the package, then runs
 * every sandbox stage's conformance fixtures on this machine (builtins in process, scripts under
 * Docker or bubblewrap as detected) and prints each fixture's expected and actual result. Exit 0
 * when every fixture gives its expected result, 1 on any mismatch or lint error.
 */
export async function testCommand(
  dir: string,
  options: TestOptions,
  io: CliIo,
  env: Readonly<Record<string, string | undefined>> = process.env,
  detect: (o: Parameters<typeof detectSandbox>[0]) => Promise<DetectedSandbox> = detectSandbox,
): Promise<number> {
  if (options.sandbox !== undefined && options.sandbox !== "bwrap" && options.sandbox !== "docker") {
    throw new UsageError(`--sandbox must be bwrap or docker, not "${options.sandbox}"`);
  }
  const { tree, result } = await lintDirectory(dir);
  if (tree === null || !result.ok || result.plan === null) {
    printLintResult(result, io, options);
    io.stderr("svc: lint found errors; no fixture was run\n");
    return 1;
  }
  const sandbox = await detect({
    env,
    ...(options.image !== undefined ? { pythonImage: options.image } : {}),
    ...(options.sandbox !== undefined ? { prefer: options.sandbox as RuntimeBackend } : {}),
  });
  if (!options.json) io.stdout(`sandbox: ${sandbox.description}\n`);
  const color = io.color ? pc : pc.createColors(false);
  const print = (stage: { stage_key: string }, r: FixtureResult) => {
    if (options.json) return;
    const mark = r.passed ? color.green("pass") : color.red("FAIL");
    const score =
      r.expected_score !== null || r.score !== null
        ? ` score ${r.score ?? "none"} (expected ${r.expected_score ?? "any"})`
        : "";
    const how = r.outcome
      ? ` [${r.outcome.backend}${r.outcome.duration_ms !== null ? `, ${r.outcome.duration_ms} ms` : ""}]`
      : "";
    io.stdout(
      `${mark} ${stage.stage_key}/${r.fixture}: expected ${r.expected}, actual ${r.actual}${score}${how}\n`,
    );
    if (!r.passed) {
      const failure = { ...r, stage_key: stage.stage_key };
      for (const line of formatFixtureFailure(failure, { color: io.color, header: false }))
        io.stdout(`${line}\n`);
    }
  };
  const stages = await runPackageConformance(
    tree,
    result.plan,
    (job) => runChecker(job, { binding: sandbox.binding, backends: sandbox.backends }),
    print,
  );
  const ok = stages.every((s) => s.report.status === "passed");
  if (options.json) {
    const out = {
      ok,
      sandbox: sandbox.description,
      stages: stages.map((s) => ({
        problem_dir: s.problem_dir,
        contract: s.contract,
        stage_key: s.stage_key,
        image_ref: s.image_ref,
        status: s.report.status,
        fixtures_total: s.report.fixtures_total,
        fixtures_passed: s.report.fixtures_passed,
        failures: s.report.failures.map((f) => ({
          ...f,
          log_tail: s.report.results.find((r) => r.fixture === f.fixture_key)?.log_tail ?? "",
        })),
        results: s.report.results.map(({ outcome, ...rest }) => ({
          ...rest,
          backend: outcome?.backend ?? null,
          limit: outcome?.limit ?? null,
          duration_ms: outcome?.duration_ms ?? null,
        })),
      })),
    };
    io.stdout(`${JSON.stringify(out, null, 2)}\n`);
  } else {
    const total = stages.reduce((n, s) => n + s.report.fixtures_total, 0);
    const passed = stages.reduce((n, s) => n + s.report.fixtures_passed, 0);
    io.stdout(
      stages.length === 0
        ? "no sandbox stage to test\n"
        : `${ok ? color.green("passed") : color.red("failed")}: ${passed} of ${total} fixtures in ${stages.length} sandbox stage(s) gave their expected result\n`,
    );
  }
  return ok ? 0 : 1;
}
