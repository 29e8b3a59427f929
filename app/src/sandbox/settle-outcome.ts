import { compileUserSchema } from "@svc/schemas";
import type { BackendName, CheckerJob, CheckerOutcome, EvidenceFile, LimitName } from "./checker-job.ts";
import { decodeJson } from "./decode-json.ts";
import { evidenceDigest } from "./evidence-digest.ts";
import { parseResultJson } from "./parse-result-json.ts";
import { OUTPUT_CEILING_BYTES, OUTPUT_MAX_ENTRIES } from "./read-output-dir.ts";
import { safeNameFromString, safeText } from "./safe-text.ts";

/** Everything a sandboxed run left behind, before the contract's rules turn it into an outcome. */
export interface RawRun {
  backend: BackendName;
  /** The checker's exit status; null when a signal ended it. */
  exit_code: number | null;
  /** The signal that ended the checker (`SIGKILL`, `SIGXCPU`...), or null. */
  signal: string | null;
  duration_ms: number;
  /** A limit the backend saw for certain: the wall clock, an OOM kill, /output over its size. */
  limit: LimitName | null;
  /** Entries under /output (result.json, evidence/...), paths relative to /output, links kept as links. */
  output: EvidenceFile[];
  log: { bytes: Uint8Array; truncated: boolean };
}

/** Messages a process prints when a limit refused it, and the limit each means (rlimits give no other signal). */
const LIMIT_MESSAGES: ReadonlyArray<[RegExp, LimitName]> = [
  [/MemoryError|Cannot allocate memory|std::bad_alloc|out of memory/i, "memory"],
  [/BlockingIOError|Resource temporarily unavailable|fork: retry/i, "processes"],
  [/No space left on device|File too large|Disk quota exceeded/i, "disk"],
];

const SIGNAL_LIMITS: Readonly<Record<string, LimitName>> = {
  SIGXCPU: "timeout",
  SIGXFSZ: "disk",
};

/** How much of the log's tail is searched for limit messages. */
const SCAN_BYTES = 65_536;

/**
 * The outcome of a run its backend's watchdog killed: the wall clock ran out, or its disk filled
 * (`inconclusive`, naming the limit; nothing under /output is read).
 */
export function watchdogOutcome(
  job: CheckerJob,
  run: Pick<RawRun, "backend" | "duration_ms" | "log"> & { limit: "timeout" | "disk" },
): CheckerOutcome {
  return settleOutcome(job, { ...run, exit_code: null, signal: "SIGKILL", output: [] });
}

/**
 * Applies the checker contract to a finished run (spec 2.2, decisions.md):
 * a limit exhausted gives `inconclusive` naming the limit, whatever result.json says (a checker
 * killed mid-write must never count as refuted); a missing or malformed result.json gives
 * `inconclusive` with the reason; evidence/summary.json is checked against the stage's
 * evidence_schema (a violation is `inconclusive`); a score is kept only for a verified score-kind
 * result, and a verified score-kind result without one is `inconclusive`.
 *
 * A limit is known for certain from the backend (wall clock, OOM kill, output size) or from the
 * signal (SIGXCPU, SIGXFSZ); otherwise, only when the checker failed (non-zero exit or no valid
 * result), from the message the refused system call left in the log.
 */
export function settleOutcome(job: CheckerJob, run: RawRun): CheckerOutcome {
  const evidence = run.output
    .filter((entry) => entry.path.startsWith("evidence/"))
    .map((entry) => ({
      ...entry,
      // Checker output is data: names and link targets are stored escaped (safe-text.ts).
      path: safeNameFromString(entry.path.slice("evidence/".length)),
      ...(entry.link_target !== undefined && { link_target: safeNameFromString(entry.link_target) }),
    }))
    .filter((entry) => entry.path.length > 0);
  const base = {
    backend: run.backend,
    duration_ms: run.duration_ms,
    evidence,
    evidence_hash: evidenceDigest(evidence),
    log: run.log,
  };
  const inconclusive = (reason: string, limit: LimitName | null): CheckerOutcome => ({
    ...base,
    result: "inconclusive",
    score: null,
    summary: safeText(reason),
    reason: safeText(reason),
    limit,
    exit_code: limit === null ? run.exit_code : null,
  });

  const certain = run.limit ?? (run.signal !== null ? (SIGNAL_LIMITS[run.signal] ?? null) : null);
  // A fork bomb can go on forking until the wall clock ends it: its refused forks name the cause.
  const cause =
    certain === "timeout" && run.limit === "timeout" && limitFromLog(run.log.bytes) === "processes"
      ? "processes"
      : certain;
  if (cause !== null) return inconclusive(limitReason(cause, job, run), cause);

  const resultFile = run.output.find((entry) => entry.path === "result.json");
  const parsed =
    resultFile === undefined
      ? ({ ok: false, reason: "the checker wrote no /output/result.json" } as const)
      : resultFile.link_target !== undefined
        ? ({ ok: false, reason: "/output/result.json is a symbolic link, not a file" } as const)
        : parseResultJson(resultFile.bytes);
  if (run.exit_code !== 0 || !parsed.ok) {
    const seen = limitFromLog(run.log.bytes);
    if (seen !== null) return inconclusive(limitReason(seen, job, run), seen);
  }
  if (!parsed.ok) return inconclusive(`${parsed.reason}${exitNote(run)}`, null);

  const file = parsed.value;
  if (file.result !== "inconclusive") {
    const evidenceProblem = checkEvidence(job.evidence_schema, evidence);
    if (evidenceProblem !== null) return inconclusive(evidenceProblem, null);
  }
  if (job.result_kind === "score" && file.result === "verified" && file.score === null) {
    return inconclusive(
      'the checker said verified on a score stage but result.json has no numeric "score"',
      null,
    );
  }
  const summary = safeText(file.summary ?? `the checker says ${file.result}`);
  return {
    ...base,
    result: file.result,
    score: job.result_kind === "score" && file.result === "verified" ? file.score : null,
    summary,
    reason: null,
    limit: null,
    exit_code: run.exit_code,
  };
}

function limitFromLog(bytes: Uint8Array): LimitName | null {
  const tail = Buffer.from(bytes.subarray(Math.max(0, bytes.length - SCAN_BYTES))).toString("latin1");
  for (const [pattern, limit] of LIMIT_MESSAGES) if (pattern.test(tail)) return limit;
  return null;
}

function limitReason(limit: LimitName, job: CheckerJob, run: RawRun): string {
  const { limits } = job.implementation;
  switch (limit) {
    case "timeout":
      return run.signal === "SIGXCPU"
        ? `the checker used its CPU time (${limits.timeout_seconds * limits.vcpu} s = timeout_seconds x vcpu) and was stopped`
        : `the checker ran past its ${limits.timeout_seconds} s wall-clock limit and was killed`;
    case "memory":
      return `the checker ran out of its ${limits.memory_mb} MB memory limit`;
    case "processes":
      return "the checker hit the sandbox's process limit (a fork was refused)";
    case "disk":
      return `the checker filled /output and /tmp past its ${limits.disk_mb} MB disk limit`;
    case "output":
      return `the checker left more under /output than the service keeps of a run (${OUTPUT_CEILING_BYTES / 1_048_576} MiB in at most ${OUTPUT_MAX_ENTRIES.toLocaleString("en")} entries)`;
    default: {
      const never: never = limit;
      throw new Error(`Unhandled limit: ${never}`);
    }
  }
}

function exitNote(run: RawRun): string {
  if (run.signal !== null) return ` (the checker was ended by ${run.signal})`;
  if (run.exit_code !== null && run.exit_code !== 0)
    return ` (the checker exited with code ${run.exit_code})`;
  return "";
}

/** null when evidence satisfies the stage's evidence_schema (or there is none), else the reason. */
function checkEvidence(schema: object | null, evidence: readonly EvidenceFile[]): string | null {
  if (schema === null) return null;
  const summary = evidence.find((entry) => entry.path === "summary.json");
  if (summary === undefined)
    return "the stage has an evidence_schema but the checker wrote no evidence/summary.json";
  if (summary.link_target !== undefined) return "evidence/summary.json is a symbolic link, not a file";
  const parsed = decodeJson(summary.bytes);
  if (!parsed.ok) return `evidence/summary.json is not JSON: ${parsed.reason}`;
  const compiled = compileUserSchema(schema);
  if (!compiled.ok) return `the stage's evidence_schema does not compile: ${compiled.message}`;
  const { valid, errors } = compiled.validate(parsed.value);
  if (valid) return null;
  return `evidence/summary.json violates the stage's evidence_schema: ${errors.slice(0, 10).join("; ")}`;
}
