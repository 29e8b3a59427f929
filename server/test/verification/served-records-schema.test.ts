import { checkSchema, type SchemaName } from "@svc/schemas";
import { beforeAll, describe, expect, it } from "vitest";
import { claimReview } from "../../src/reviews/claim-review.ts";
import { submitReviewResponse } from "../../src/reviews/submit-review-response.ts";
import { finishWithError } from "../../src/verification/execute-verification-run.ts";
import { redactStageLog } from "../../src/verification/redact-stage-log.ts";
import { revokeVerification } from "../../src/verification/revoke-verification.ts";
import { sweepAttestationDeadlines } from "../../src/verification/sweep-attestation-deadlines.ts";
import { viewerOf } from "../../src/visibility/viewer.ts";
import { call } from "../attempts/support/solving-fixture.ts";
import { fixtureNode, fixtureProtocol } from "../reviews/surface/support/review-fixture.ts";
import {
  at,
  BAD_ASSIGNMENT,
  GOOD_ASSIGNMENT,
  sealedContract,
  sealedText,
  sealing,
  T0,
  useSealedFixture,
} from "../sealing/support/sealed-fixture.ts";
import {
  type SeededUser,
  seedContract,
  seedImplementation,
  seedProblem,
  seedProtocol,
} from "../support/seed-records.ts";
import { describeWithDatabase } from "../support/test-database.ts";

/** The states served, in the order the scenario makes them. */
const STATES = [
  "sandbox verified",
  "sandbox refuted",
  "revoked",
  "log redacted",
  "error",
  "sandbox stage the service could not execute",
  "review stage running",
  "review stage verified",
  "external stage waiting",
  "external stage attested",
  "external stage waited out",
  "sealed outcome withheld",
];

/** One run in one state, and who reads it. */
interface ServedRun {
  state: string;
  runId: string;
  reader: SeededUser;
  /** What makes the state what it is, checked on every door's answer. */
  shows(record: RunRecord): void;
}

interface RunRecord {
  status: string;
  result: string | null;
  revocation: unknown;
  stage_results: Array<{
    stage_key: string;
    kind: string;
    status: string;
    result: string | null;
    mechanism: Record<string, Record<string, unknown> | null>;
    log: { redaction: unknown } | null;
  }>;
}

function expectSchema(name: SchemaName, value: unknown, label: string): void {
  expect(checkSchema(name, value).issues, `${label} against ${name}`).toEqual([]);
}

/**
 * Every VerificationRun served matches its JSON Schema (spec 2.4, schemas/verification-run):
 * runs in every state (each stage kind, each result, revoked, redacted, an external stage
 * waiting and attested, a review stage running and done, stages the service could not execute
 * or that waited out, a sealed outcome withheld), each read through get_verification, /api and
 * the resource. The ProblemRevision and ReviewProtocol records are checked the same way.
 */
describeWithDatabase("every record served matches its schema", () => {
  const f = useSealedFixture();
  const runs: ServedRun[] = [];
  const ids = { revisionId: "", protocolId: "", slug: "schema-open" };

  /** A listed Problem on `contractId`, without sealing (outcomes visible), with the SAT instance. */
  async function openProblem(slug: string, contractId: string) {
    return await seedProblem(f.services, {
      owner: f.owner.id,
      slug,
      visibility: "listed",
      revision: {
        statement: "Satisfy the instance.",
        verifierContractId: contractId,
        bindings: [
          { key: "instance", bytes: sealedText(slug), filename: "instance.cnf" },
          { key: "notes", bytes: "public notes", filename: "notes.txt" },
        ],
      },
    });
  }

  /** The sealed contract with a second stage after the sandbox one (a fresh Contract each time). */
  async function contractWith(title: string, stage: Record<string, unknown> | null) {
    const document = sealedContract();
    document.title = title;
    if (stage) {
      (document.stages as unknown[]).push({
        title: "Second stage",
        description_md: "",
        evidence_schema: null,
        review_protocol_id: null,
        rule_owner: "contract",
        acceptance: "It holds.",
        external_system: null,
        implementation: null,
        reference_input_slots: [],
        ...stage,
      });
    }
    const contractId = await seedContract(f.services.sql, f.owner.id, document);
    return contractId;
  }

  async function submitted(slug: string, assignment = GOOD_ASSIGNMENT) {
    const { verification_run_id } = await f.submit(f.solver, slug, assignment);
    await f.execute(verification_run_id);
    return verification_run_id;
  }

  const stage = (record: RunRecord, key: string) => record.stage_results.find((s) => s.stage_key === key);

  beforeAll(async () => {
    f.setNow(T0);
    const admin = viewerOf(f.admin.principal);
    const problem = await openProblem(ids.slug, f.contractId);
    ids.revisionId = problem.revisionId;

    const verified = await submitted(ids.slug);
    runs.push({
      state: "sandbox verified",
      runId: verified,
      reader: f.solver,
      shows: (r) =>
        expect(stage(r, "check")).toMatchObject({
          result: "verified",
          mechanism: { sandbox: { backend: "builtin" } },
        }),
    });
    const refuted = await submitted(ids.slug, BAD_ASSIGNMENT);
    runs.push({
      state: "sandbox refuted",
      runId: refuted,
      reader: f.solver,
      shows: (r) => expect(r.result).toBe("refuted"),
    });

    const revoked = await submitted(ids.slug, BAD_ASSIGNMENT);
    await revokeVerification(f.services, admin, {
      verification_run_id: revoked,
      reason_md: "A broken checker.",
    });
    runs.push({
      state: "revoked",
      runId: revoked,
      reader: f.solver,
      shows: (r) => expect(r.revocation).not.toBeNull(),
    });

    const redacted = await submitted(ids.slug);
    await redactStageLog(f.services, admin, {
      verification_run_id: redacted,
      stage_key: "check",
      reason: "personal_data",
    });
    runs.push({
      state: "log redacted",
      runId: redacted,
      reader: f.admin,
      shows: (r) => expect(stage(r, "check")?.log?.redaction).toMatchObject({ reason: "personal_data" }),
    });

    // The machinery failed after the sandbox stage started: the run is error, the stage keeps its mechanism.
    const { verification_run_id: failed } = await f.submit(f.solver, ids.slug, GOOD_ASSIGNMENT);
    await f.services.sql`
      update verification_runs set status = 'running', started_at = ${T0} where id = ${failed}`;
    await finishWithError(f.services, failed, "the worker's database connection was lost");
    runs.push({
      state: "error",
      runId: failed,
      reader: f.solver,
      shows: (r) => expect(r.result).toBe("error"),
    });

    // A stage the service cannot execute: no implementation of it exists.
    await openProblem("schema-unrunnable", await contractWith("No implementation", null));
    const unrunnable = await submitted("schema-unrunnable");
    runs.push({
      state: "sandbox stage the service could not execute",
      runId: unrunnable,
      reader: f.solver,
      shows: (r) => expect(r).toMatchObject({ result: "inconclusive", stage_results: [] }),
    });

    // A review stage: running (its process open), then done.
    const protocol = fixtureProtocol([
      fixtureNode("readers", { count: 1, instructions: "Judge the assignment." }),
    ]);
    ids.protocolId = await seedProtocol(f.services.sql, f.owner.id, "schema-protocol", protocol);
    const reviewed = await contractWith("With a review", {
      key: "readers_stage",
      kind: "review",
      review_protocol_id: ids.protocolId,
    });
    await seedImplementation(f.services.sql, { contractId: reviewed, stageKey: "check", author: f.owner.id });
    await openProblem("schema-reviewed", reviewed);
    const reviewRunning = await submitted("schema-reviewed");
    runs.push({
      state: "review stage running",
      runId: reviewRunning,
      reader: f.solver,
      shows: (r) =>
        expect(stage(r, "readers_stage")).toMatchObject({
          status: "running",
          mechanism: { review: { review_protocol_id: ids.protocolId } },
        }),
    });
    const reviewDone = await submitted("schema-reviewed");
    const [process] = await f.services.sql<{ id: string }[]>`
      select id from review_processes where verification_run_id = ${reviewDone}`;
    const seat = await claimReview(f.services, f.rival.id, {
      review_process_id: process!.id,
      node_id: "readers",
    });
    await submitReviewResponse(f.services, f.rival.id, {
      assignment_id: seat.id,
      response: { verdict: "accept" },
      rationale_md: "It satisfies every clause.",
      citations: [],
    });
    await f.execute(reviewDone);
    runs.push({
      state: "review stage verified",
      runId: reviewDone,
      reader: f.solver,
      shows: (r) =>
        expect(stage(r, "readers_stage")).toMatchObject({ result: "verified", mechanism: { review: {} } }),
    });

    // An external stage: waiting, attested, and waited out.
    await call(f.as(f.admin), "register_external_system", {
      system: "Schema Lab",
      attestation_hours: 1,
      attesters: [f.rival.handle],
    });
    const external = await contractWith("With an attestation", {
      key: "lab_check",
      kind: "external",
      rule_owner: "partner",
      external_system: "Schema Lab",
    });
    await seedImplementation(f.services.sql, { contractId: external, stageKey: "check", author: f.owner.id });
    await openProblem("schema-attested", external);
    const waiting = await submitted("schema-attested");
    runs.push({
      state: "external stage waiting",
      runId: waiting,
      reader: f.solver,
      shows: (r) => expect(r).toMatchObject({ status: "running", result: null }),
    });
    const attested = await submitted("schema-attested");
    await call(f.as(f.rival), "attest_external_stage", {
      verification_run_id: attested,
      stage_key: "lab_check",
      result: "verified",
      reference: "LAB-7",
      evidence_md: "Reproduced.",
    });
    await f.execute(attested);
    runs.push({
      state: "external stage attested",
      runId: attested,
      reader: f.solver,
      shows: (r) =>
        expect(stage(r, "lab_check")?.mechanism.external).toMatchObject({
          reference: "LAB-7",
          system: "Schema Lab",
        }),
    });
    const late = await submitted("schema-attested");
    f.setNow(new Date(T0.getTime() + 2 * 3_600_000));
    await sweepAttestationDeadlines(f.services);
    await f.execute(late);
    runs.push({
      state: "external stage waited out",
      runId: late,
      reader: f.solver,
      shows: (r) => expect(r).toMatchObject({ status: "finished", result: "inconclusive" }),
    });
    f.setNow(T0);

    // A sealed evaluation withholding its outcome from the submitter.
    await f.sealedProblem(
      "schema-sealed",
      sealing({ mode: "final_only", releaseAt: at(30), closesAt: at(20) }),
    );
    const sealed = await submitted("schema-sealed", BAD_ASSIGNMENT);
    runs.push({
      state: "sealed outcome withheld",
      runId: sealed,
      reader: f.solver,
      shows: (r) => expect(r).toMatchObject({ status: "finished", result: null }),
    });
  }, 120_000);

  /** The run as each door serves it to `reader`. */
  async function served(run: ServedRun): Promise<Array<[string, unknown]>> {
    const tool = await call<{ verification: unknown }>(f.as(run.reader), "get_verification", {
      verification_run_id: run.runId,
    });
    const api = await f.http(`/api/verifications/${run.runId}`, run.reader, "application/json");
    expect(api.status).toBe(200);
    const resource = await f.as(run.reader).readResource(`svc://verifications/${run.runId}`);
    const text = resource[0]!.text!;
    return [
      ["get_verification", tool.verification],
      ["GET /api/verifications/{id}", await api.json()],
      ["svc://verifications/{id}", JSON.parse(text)],
    ];
  }

  it("covers every state the brief names", () => {
    expect(runs.map((r) => r.state)).toEqual(STATES);
  });

  describe("a VerificationRun", () => {
    for (const [index, state] of STATES.entries()) {
      it(`${state}: each door serves it matching verification-run`, async () => {
        const run = runs[index]!;
        for (const [door, record] of await served(run)) {
          expectSchema("verification-run", record, `${run.state} through ${door}`);
          run.shows(record as RunRecord);
        }
      });
    }
  });

  // No door serves a whole VerifierImplementation record: get_verifier_contract summarizes them.
  it("serves the ProblemRevision and the ReviewProtocol matching their schemas", async () => {
    const problem = await call<{ revision: unknown }>(f.as(f.solver), "get_problem", { problem: ids.slug });
    expectSchema("problem-revision", problem.revision, "get_problem's revision");
    const protocol = await call<{ review_protocol: unknown }>(f.as(f.owner), "get_review_protocol", {
      review_protocol_id: ids.protocolId,
    });
    expectSchema("review-protocol", protocol.review_protocol, "get_review_protocol");
  });
});
