import type { CheckerResult, ConformanceFixture, VerifierContractFile } from "@svc/schemas";
import { mediaTypeOf } from "../catalogue/media-type.ts";
import { type ContentHash, sha256 } from "../hash/sha256.ts";
import type {
  CheckerImplementation,
  CheckerJob,
  CheckerOutcome,
  InputFile,
  StageResult,
} from "./checker-job.ts";
import { logTail } from "./log-tail.ts";
import { stageJob } from "./stage-job.ts";

/** A fixture file as a fixture names it; `readBytes` resolves it (package tree, upload, blob store). */
export interface FixtureFileRef {
  filename: string;
  content_hash?: string;
  size_bytes?: number;
}

export interface ConformanceRequest {
  contract: VerifierContractFile;
  stageKey: string;
  implementation: CheckerImplementation;
  readBytes: (file: FixtureFileRef) => Promise<Uint8Array>;
  /** Runs one job, e.g. `(job) => runChecker(job, {binding, backends})`. */
  run: (job: CheckerJob) => Promise<CheckerOutcome>;
  /** Called after each fixture (progress output). */
  onResult?: (result: FixtureResult) => void;
}

/** One fixture's run, as `svc test` prints it and validate_authoring_upload's `conformance` lists it. */
export interface FixtureResult {
  fixture: string;
  expected: CheckerResult;
  actual: StageResult;
  passed: boolean;
  score: number | null;
  expected_score: number | null;
  /** The outcome's summary or reason (at most 4000 chars). */
  detail: string;
  /** The last 4 KiB of what the checker wrote on stdout then stderr (its traceback); "" when nothing. */
  log_tail: string;
  outcome: CheckerOutcome | null;
}

/** The conformance record of spec 2.2 (without checked_at and the differential id) plus every result. */
export interface ConformanceReport {
  status: "passed" | "failed";
  fixtures_total: number;
  fixtures_passed: number;
  failures: Array<{
    fixture_key: string;
    expected_result: CheckerResult;
    actual_result: StageResult;
    detail: string;
  }>;
  results: FixtureResult[];
}

const MAX_DETAIL = 4000;
const MAX_FAILURES = 100;

/**
 * Runs every conformance fixture of one sandbox stage and compares each outcome with the
 * fixture's expected result (and expected score when it states one): `passed` only when all
 * match (spec 2.2). A stage with no fixtures fails: conformance cannot pass on nothing. A fixture
 * file that cannot be read or does not match its stated hash is an `error` for that fixture,
 * never a skipped one. Fixtures run one at a time; the caller's `run` picks the backend.
 */
export async function runConformance(request: ConformanceRequest): Promise<ConformanceReport> {
  const { contract, stageKey } = request;
  const stage = contract.stages.find((s) => s.key === stageKey && s.kind === "sandbox");
  if (stage === undefined) throw new Error(`"${stageKey}" is not a sandbox stage of the contract`);
  const fixtures = contract.conformance_fixtures.filter((f) => f.stage_key === stageKey);
  const results: FixtureResult[] = [];
  for (const fixture of fixtures) {
    const result = await runFixture(request, fixture, (files) =>
      stageJob(contract, stage, request.implementation, files),
    );
    results.push(result);
    request.onResult?.(result);
  }
  const failed = results.filter((r) => !r.passed);
  return {
    status: fixtures.length > 0 && failed.length === 0 ? "passed" : "failed",
    fixtures_total: fixtures.length,
    fixtures_passed: results.length - failed.length,
    failures: failed.slice(0, MAX_FAILURES).map((r) => ({
      fixture_key: r.fixture,
      expected_result: r.expected,
      actual_result: r.actual,
      detail: r.detail,
    })),
    results,
  };
}

async function runFixture(
  request: ConformanceRequest,
  fixture: ConformanceFixture,
  job: (files: { artifacts: InputFile[]; reference: InputFile[] }) => CheckerJob,
): Promise<FixtureResult> {
  const expected_score = fixture.expected_score ?? null;
  const base = { fixture: fixture.key, expected: fixture.expected_result, expected_score };
  let files: { artifacts: InputFile[]; reference: InputFile[] };
  try {
    files = {
      artifacts: await Promise.all(fixture.inputs.artifacts.map((a) => readInput(request, a.role, a))),
      reference: await Promise.all(
        Object.entries(fixture.inputs.reference).map(([key, ref]) => readInput(request, key, ref)),
      ),
    };
  } catch (error) {
    const detail = `fixture input unavailable: ${error instanceof Error ? error.message : String(error)}`;
    return {
      ...base,
      actual: "error",
      passed: false,
      score: null,
      detail: detail.slice(0, MAX_DETAIL),
      log_tail: "",
      outcome: null,
    };
  }
  const outcome = await request.run(job(files));
  const scoreMatches =
    expected_score === null ||
    (outcome.score !== null &&
      Math.abs(outcome.score - expected_score) <= 1e-9 * Math.max(1, Math.abs(expected_score)));
  const passed = outcome.result === fixture.expected_result && scoreMatches;
  let detail = outcome.reason ?? outcome.summary;
  if (outcome.result === fixture.expected_result && !scoreMatches) {
    detail = `score ${outcome.score ?? "none"} differs from the expected ${expected_score}; ${detail}`;
  }
  return {
    ...base,
    actual: outcome.result,
    passed,
    score: outcome.score,
    detail: detail.slice(0, MAX_DETAIL),
    log_tail: logTail(outcome.log),
    outcome,
  };
}

async function readInput(request: ConformanceRequest, name: string, ref: FixtureFileRef): Promise<InputFile> {
  const bytes = await request.readBytes(ref);
  const content_hash = sha256(bytes) as ContentHash;
  if (ref.content_hash !== undefined && ref.content_hash !== content_hash) {
    throw new Error(`${ref.filename} hashes to ${content_hash}, not the fixture's ${ref.content_hash}`);
  }
  return {
    name,
    filename: baseName(ref.filename),
    media_type: mediaTypeOf(ref.filename),
    content_hash,
    size_bytes: bytes.length,
    bytes,
  };
}

/** Fixture filenames may sit in subfolders of fixtures/; the mount uses the last component. */
function baseName(filename: string): string {
  return filename.slice(filename.lastIndexOf("/") + 1);
}
