import { describe, expect, it } from "vitest";
import { checkSchema } from "../src/index.ts";
import { issuesOf, onlyIssue, validExample } from "./fixtures.ts";

const implementation = validExample("verifier-implementation", "minimal");
const revision = validExample("problem-revision", "full");
const run = validExample("verification-run", "full");
type StageResult = Record<string, unknown> & { mechanism: Record<string, unknown> };
const stageResults = run.stage_results as StageResult[];
const withStage = (index: number, change: (stage: StageResult) => StageResult) => ({
  ...run,
  stage_results: stageResults.map((stage, i) => (i === index ? change(structuredClone(stage)) : stage)),
});

describe("VerifierImplementation record schema", () => {
  it("refuses network other than none and out-of-range limits", () => {
    const limits = { vcpu: 0, memory_mb: 16385, disk_mb: 63, timeout_seconds: 3601, network: "bridge" };
    expect(issuesOf("verifier-implementation", { ...implementation, limits })).toEqual([
      ["/limits/disk_mb", "minimum"],
      ["/limits/memory_mb", "maximum"],
      ["/limits/network", "const"],
      ["/limits/timeout_seconds", "maximum"],
      ["/limits/vcpu", "minimum"],
    ]);
  });

  it("needs an argument vector of 1 to 20 non-empty strings, not a shell string", () => {
    expect(
      issuesOf("verifier-implementation", { ...implementation, entrypoint: "python3 checker.py" }),
    ).toEqual([["/entrypoint", "type"]]);
    expect(issuesOf("verifier-implementation", { ...implementation, entrypoint: [""] })).toEqual([
      ["/entrypoint/0", "minLength"],
    ]);
  });

  it("refuses a runtime that is not a container or is not pinned by a sha256 digest", () => {
    const runtime = { kind: "vm", image_ref: "python:3", image_digest: "latest" };
    expect(issuesOf("verifier-implementation", { ...implementation, runtime })).toEqual([
      ["/runtime/image_digest", "pattern"],
      ["/runtime/kind", "const"],
    ]);
  });

  it("bounds a script program to 262144 bytes", () => {
    const program = { filename: "checker.py", content_hash: `sha256:${"a".repeat(64)}`, size_bytes: 262145 };
    expect(issuesOf("verifier-implementation", { ...implementation, program })).toEqual([
      ["/program/size_bytes", "maximum"],
    ]);
  });

  it("needs all three source keys, each possibly null", () => {
    expect(
      issuesOf("verifier-implementation", { ...implementation, source: { source_uri: "not a uri" } }),
    ).toEqual([
      ["/source/license", "required"],
      ["/source/source_revision", "required"],
      ["/source/source_uri", "format"],
    ]);
  });

  it("keeps checked_at null while pending and set once checked", () => {
    const conformance = implementation.conformance as Record<string, unknown>;
    const pendingChecked = { ...conformance, checked_at: "2026-11-22T00:00:00Z" };
    expect(issuesOf("verifier-implementation", { ...implementation, conformance: pendingChecked })).toEqual([
      ["/conformance/checked_at", "type"],
    ]);
    const passedUnchecked = { ...conformance, status: "passed" };
    expect(
      onlyIssue("verifier-implementation", { ...implementation, conformance: passedUnchecked }).message,
    ).toContain("a checked conformance records checked_at");
  });

  it("refuses failures on a passed conformance and an error as an expected result", () => {
    const failure = { fixture_key: "good", expected_result: "error", actual_result: "refuted", detail: "" };
    const conformance = {
      status: "passed",
      checked_at: "2026-11-22T00:00:00Z",
      fixtures_total: 1,
      fixtures_passed: 1,
      failures: [failure],
    };
    expect(issuesOf("verifier-implementation", { ...implementation, conformance })).toEqual([
      ["/conformance/failures", "maxItems"],
      ["/conformance/failures/0/expected_result", "enum"],
    ]);
  });
});

describe("ProblemRevision record schema", () => {
  it("accepts the full sealing object with its derived fields", () => {
    expect(checkSchema("problem-revision", revision).valid).toBe(true);
  });

  it("requires unsealed_at and release_event in a revision's sealing", () => {
    const { unsealed_at: _u, release_event: _r, ...sealing } = revision.sealing as Record<string, unknown>;
    expect(issuesOf("problem-revision", { ...revision, sealing })).toEqual([
      ["/sealing/unsealed_at", "required"],
    ]);
  });

  it("refuses an evaluation_id that is not sev_ and 32 lowercase hex characters", () => {
    const sealing = {
      ...(revision.sealing as object),
      evaluation_id: "sev_0123456789ABCDEF0123456789abcdef",
    };
    expect(issuesOf("problem-revision", { ...revision, sealing })).toEqual([
      ["/sealing/evaluation_id", "pattern"],
    ]);
  });

  it("bounds a release reason to 1..4000 characters", () => {
    const release_event = { unsealed_at: "2027-03-01T00:00:00Z", user_id: "usr_0123456789", reason_md: "" };
    const sealing = { ...(revision.sealing as object), release_event };
    expect(issuesOf("problem-revision", { ...revision, sealing })).toEqual([
      ["/sealing/release_event/reason_md", "minLength"],
    ]);
  });

  it("takes stored and linked bindings, at most 10 and no duplicates", () => {
    const bindings = revision.verifier_input_bindings as object[];
    expect(
      issuesOf("problem-revision", { ...revision, verifier_input_bindings: [bindings[0], bindings[0]] }),
    ).toEqual([["/verifier_input_bindings", "uniqueItems"]]);
    const many = Array.from({ length: 11 }, (_, i) => ({ ...bindings[0], key: `k${i}` }));
    expect(issuesOf("problem-revision", { ...revision, verifier_input_bindings: many })).toEqual([
      ["/verifier_input_bindings", "maxItems"],
    ]);
  });

  it("refuses a linked binding whose url is not https", () => {
    const link = {
      ...(revision.verifier_input_bindings as object[])[1],
      url: "http://data.example.org/big.csv",
    };
    expect(issuesOf("problem-revision", { ...revision, verifier_input_bindings: [link] })).toEqual([
      ["/verifier_input_bindings/0/url", "pattern"],
    ]);
  });

  it("needs a non-empty statement and a revision number of at least 1", () => {
    expect(issuesOf("problem-revision", { ...revision, statement_md: "", revision_number: 0 })).toEqual([
      ["/revision_number", "minimum"],
      ["/statement_md", "minLength"],
    ]);
  });
});

describe("VerificationRun record schema", () => {
  it("refuses a sandbox stage whose mechanism is a review", () => {
    const run2 = withStage(0, (stage) => ({ ...stage, mechanism: stageResults[1]!.mechanism }));
    const issues = checkSchema("verification-run", run2).issues;
    expect(issues.map((i) => [i.path, i.keyword])).toEqual([
      ["/stage_results/0/mechanism/review", "type"],
      ["/stage_results/0/mechanism/sandbox", "type"],
    ]);
    expect(issues[0]!.message).toContain("a sandbox stage's mechanism has only `sandbox` non-null");
  });

  it("refuses a mechanism with two members set", () => {
    const run2 = withStage(2, (stage) => ({
      ...stage,
      mechanism: { ...stage.mechanism, review: stageResults[1]!.mechanism.review },
    }));
    expect(issuesOf("verification-run", run2)).toEqual([["/stage_results/2/mechanism/review", "type"]]);
  });

  it("requires every mechanism member key, null or not", () => {
    const run2 = withStage(1, (stage) => ({ ...stage, mechanism: { review: stage.mechanism.review } }));
    expect(issuesOf("verification-run", run2)).toEqual([
      ["/stage_results/1/mechanism/external", "required"],
      ["/stage_results/1/mechanism/sandbox", "required"],
    ]);
  });

  it("checks the log, its redaction reason and its resource uri", () => {
    const run2 = withStage(0, (stage) => {
      const log = stage.log as Record<string, unknown>;
      return {
        ...stage,
        log: {
          ...log,
          redaction: { ...(log.redaction as object), reason: "typo" },
          resource_uri: "svc://logs/1",
        },
      };
    });
    expect(issuesOf("verification-run", run2)).toEqual([
      ["/stage_results/0/log/redaction/reason", "enum"],
      ["/stage_results/0/log/resource_uri", "pattern"],
    ]);
  });

  it("lists the run results and refuses more than 20 artifacts or 10 stage results", () => {
    expect(onlyIssue("verification-run", { ...run, result: "passed" }).message).toBe(
      '"result" must be one of "verified", "refuted", "inconclusive", "error", null; got "passed"',
    );
    const artifacts = Array.from({ length: 21 }, () => (run.inputs as { artifacts: object[] }).artifacts[0]);
    expect(
      issuesOf("verification-run", { ...run, inputs: { ...(run.inputs as object), artifacts } }),
    ).toEqual([["/inputs/artifacts", "maxItems"]]);
    const stages = Array.from({ length: 11 }, () => stageResults[0]);
    expect(issuesOf("verification-run", { ...run, stage_results: stages })).toEqual([
      ["/stage_results", "maxItems"],
    ]);
  });

  it("bounds evidence to 20000 characters and a revocation reason to 10000", () => {
    const revocation = { ...(run.revocation as object), reason_md: "x".repeat(10001) };
    expect(issuesOf("verification-run", { ...run, evidence_md: "x".repeat(20001), revocation })).toEqual([
      ["/evidence_md", "maxLength"],
      ["/revocation/reason_md", "maxLength"],
    ]);
  });
});
