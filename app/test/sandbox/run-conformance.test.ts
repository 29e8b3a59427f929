import type { VerifierContractFile } from "@svc/schemas";
import { describe, expect, it } from "vitest";
import { catalogueDigest } from "../../src/catalogue/implementation-catalogue.ts";
import { sha256 } from "../../src/hash/sha256.ts";
import { runChecker } from "../../src/sandbox/run-checker.ts";
import { runConformance } from "../../src/sandbox/run-conformance.ts";

const SAT = "svc-builtin/sat-assignment-check:1";
const FILES: Record<string, string> = {
  "i.cnf": "p cnf 2 2\n1 2 0\n-1 0\n",
  "good.txt": "-1 2 0",
  "bad.txt": "1 2 0",
  "junk.txt": "x",
};

function fixture(
  key: string,
  assignment: string,
  expected: "verified" | "refuted" | "inconclusive",
  extra = {},
) {
  const ref = (filename: string) => ({
    filename,
    content_hash: sha256(FILES[filename] ?? ""),
    size_bytes: 1,
  });
  return {
    key,
    stage_key: "sat",
    description: key,
    inputs: {
      reference: { instance: ref("i.cnf") },
      artifacts: [{ role: "assignment", ...ref(assignment) }],
    },
    expected_result: expected,
    ...extra,
  };
}

function contract(fixtures: ReturnType<typeof fixture>[]): VerifierContractFile {
  return {
    title: "SAT",
    statement_md: "",
    reference_inputs: [
      { key: "instance", required: true, media_types: ["text/plain"], max_bytes: 1000, description: "" },
    ],
    stages: [
      {
        key: "sat",
        kind: "sandbox",
        title: "SAT",
        description_md: "",
        evidence_schema: null,
        review_protocol_id: null,
        rule_owner: "contract",
        acceptance: "satisfied",
        external_system: null,
        implementation: SAT,
      },
    ],
    submission_requirements: {
      required_artifacts: [
        { role: "assignment", description: "", media_types: ["text/plain"], max_bytes: 1000 },
      ],
      accepts_text_only: false,
      answer_format_md: null,
    },
    result_kind: "pass_fail",
    score: null,
    conformance_fixtures: fixtures,
  } as unknown as VerifierContractFile;
}

const implementation = {
  image_ref: SAT,
  image_digest: catalogueDigest(SAT),
  entrypoint: ["builtin"],
  limits: { vcpu: 1, memory_mb: 128, disk_mb: 64, timeout_seconds: 5 },
  program: null,
};

async function conformance(fixtures: ReturnType<typeof fixture>[]) {
  return runConformance({
    contract: contract(fixtures),
    stageKey: "sat",
    implementation,
    readBytes: async (ref) => {
      const text = FILES[ref.filename];
      if (text === undefined) throw new Error(`no ${ref.filename}`);
      return new TextEncoder().encode(text);
    },
    run: (job) => runChecker(job, { binding: null, backends: {} }),
  });
}

describe("runConformance", () => {
  it("passes when every fixture gives its expected result", async () => {
    const report = await conformance([
      fixture("good", "good.txt", "verified"),
      fixture("bad", "bad.txt", "refuted"),
      fixture("junk", "junk.txt", "inconclusive"),
    ]);
    expect(report).toMatchObject({ status: "passed", fixtures_total: 3, fixtures_passed: 3, failures: [] });
    expect(report.results.map((r) => [r.fixture, r.expected, r.actual, r.passed])).toEqual([
      ["good", "verified", "verified", true],
      ["bad", "refuted", "refuted", true],
      ["junk", "inconclusive", "inconclusive", true],
    ]);
  });

  it("fails on one mismatch, listing it with the outcome's detail", async () => {
    const report = await conformance([
      fixture("good", "good.txt", "verified"),
      fixture("bad", "bad.txt", "verified"),
    ]);
    expect(report).toMatchObject({ status: "failed", fixtures_total: 2, fixtures_passed: 1 });
    expect(report.failures).toEqual([
      {
        fixture_key: "bad",
        expected_result: "verified",
        actual_result: "refuted",
        detail: expect.stringContaining("clause"),
      },
    ]);
  });

  it("fails a fixture whose expected score is not met, and one whose file is missing or altered", async () => {
    const missing = fixture("missing", "good.txt", "verified");
    missing.inputs.artifacts[0]!.filename = "nowhere.txt";
    const altered = fixture("altered", "good.txt", "verified");
    altered.inputs.artifacts[0]!.content_hash = sha256("other");
    const report = await conformance([
      fixture("scored", "good.txt", "verified", { expected_score: 1 }),
      missing,
      altered,
    ]);
    expect(report.fixtures_passed).toBe(0);
    expect(report.failures.map((f) => [f.fixture_key, f.actual_result])).toEqual([
      ["scored", "verified"],
      ["missing", "error"],
      ["altered", "error"],
    ]);
    expect(report.failures[0]!.detail).toContain("score");
  });

  it("fails a stage with no fixtures: conformance cannot pass on nothing", async () => {
    expect(await conformance([])).toMatchObject({ status: "failed", fixtures_total: 0 });
  });
});
