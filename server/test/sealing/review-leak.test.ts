import { beforeAll, describe, expect, it } from "vitest";
import { call } from "../attempts/support/solving-fixture.ts";
import type { TestClient } from "../edges/mcp/support/mcp-clients.ts";
import { fixtureNode, fixtureProtocol } from "../reviews/surface/support/review-fixture.ts";
import { seedContract, seedImplementation, seedProblem, seedProtocol } from "../support/seed-records.ts";
import { describeWithDatabase } from "../support/test-database.ts";
import {
  at,
  GOOD_ASSIGNMENT,
  SEALED_CLAUSE,
  sealedContract,
  sealedText,
  sealing,
  T0,
  useSealedFixture,
} from "./support/sealed-fixture.ts";

/**
 * The reviewer's side of the leak test (issue 7): a sealed final_only evaluation whose Contract
 * runs the protected sandbox stage and then a review stage showing stage evidence. A reviewer
 * (neither owner nor submitter) reads every review path while the evaluation is sealed: none
 * shows a sealed byte, the protected stage's result or its evidence.
 */
describeWithDatabase("nothing sealed reaches a reviewer", () => {
  const f = useSealedFixture();
  const slug = "reviewed-sealed";
  let processId: string;
  let assignmentId: string;
  /** Within the claim's two-hour hold and the node's deadline, long before any release. */
  const soon = new Date(T0.getTime() + 60_000);

  beforeAll(async () => {
    f.setNow(T0);
    const node = fixtureNode("readers", { count: 1, hidden: ["submitter_identity"] });
    (node.visibility as { stage_evidence: boolean }).stage_evidence = true;
    const protocolId = await seedProtocol(
      f.services.sql,
      f.owner.id,
      "sealed-readers",
      fixtureProtocol([node]),
    );
    const contract = sealedContract();
    (contract.stages as unknown[]).push({
      key: "review",
      kind: "review",
      title: "Readers",
      description_md: "",
      evidence_schema: null,
      review_protocol_id: protocolId,
      rule_owner: "contract",
      acceptance: "A reader accepts the assignment.",
      external_system: null,
    });
    const contractId = await seedContract(f.services.sql, f.owner.id, contract);
    await seedImplementation(f.services.sql, { contractId, stageKey: "check", author: f.owner.id });
    await seedProblem(f.services, {
      owner: f.owner.id,
      slug,
      visibility: "listed",
      revision: {
        statement: "Satisfy the sealed instance.",
        verifierContractId: contractId,
        bindings: [
          { key: "instance", bytes: sealedText(slug), filename: "instance.cnf" },
          { key: "notes", bytes: "public notes", filename: "notes.txt" },
        ],
        sealing: sealing({ mode: "final_only", releaseAt: at(30), closesAt: at(20) }),
      },
    });
    const submitted = await f.submit(f.solver, slug, GOOD_ASSIGNMENT);
    await f.execute(submitted.verification_run_id);
    const [process] = await f.services.sql<{ id: string }[]>`
      select id from review_processes where verification_run_id = ${submitted.verification_run_id}`;
    processId = process!.id;
    const claimed = await call<{ assignment: { id: string } }>(f.as(f.rival), "claim_review", {
      review_process_id: processId,
      node_id: "readers",
    });
    assignmentId = claimed.assignment.id;
    // The protected stage really passed and holds its evidence: the manager sees it.
    const [stage] = await f.services.sql<{ result: string }[]>`
      select result from verification_stage_results
      where verification_run_id = ${submitted.verification_run_id} and stage_key = 'check'`;
    expect(stage!.result).toBe("verified");
  }, 60_000);

  const tool = (name: string, args: () => Record<string, unknown>) => async (client: TestClient) =>
    JSON.stringify(await client.callTool(name, args()));
  const page = (path: () => string, accept: string) => async () => {
    const response = await f.http(path(), f.rival, accept);
    return `${response.status} ${await response.text()}`;
  };
  const reads: Array<[string, (client: TestClient) => Promise<string>]> = [
    ["pick_review", tool("pick_review", () => ({}))],
    [
      "get_review_case",
      tool("get_review_case", () => ({ review_process_id: processId, node_id: "readers" })),
    ],
    [
      "claim_review (renewal)",
      tool("claim_review", () => ({ review_process_id: processId, node_id: "readers" })),
    ],
    ["get_review_assignment", tool("get_review_assignment", () => ({ assignment_id: assignmentId }))],
    ["list_my_review_assignments", tool("list_my_review_assignments", () => ({}))],
    ["get_review_process", tool("get_review_process", () => ({ review_process_id: processId }))],
    [
      "svc://review-processes/{review_process_id}",
      async (client) => JSON.stringify(await client.readResource(`svc://review-processes/${processId}`)),
    ],
    ["GET case page (HTML)", page(() => `/reviews/${processId}/nodes/readers`, "text/html")],
    ["GET case page (JSON)", page(() => `/reviews/${processId}/nodes/readers`, "application/json")],
    ["GET assignment page (HTML)", page(() => `/review-assignments/${assignmentId}`, "text/html")],
    ["GET review process page (HTML)", page(() => `/review-processes/${processId}`, "text/html")],
    ["GET review process page (JSON)", page(() => `/review-processes/${processId}`, "application/json")],
  ];

  describe("as the reviewer", () => {
    for (const [name, read] of reads) {
      it(`${name} shows no sealed byte and no withheld outcome or evidence`, async () => {
        f.setNow(soon);
        const text = await read(f.as(f.rival));
        for (const secret of [sealedText(slug), sealedText(slug).replace(/\n/g, "\\n"), SEALED_CLAUSE])
          expect(text).not.toContain(secret);
        expect(text).not.toMatch(
          /"result\\?":\s*\\?"(verified|refuted|inconclusive|error)|>(verified|refuted)</,
        );
        expect(text).not.toMatch(/stage check: verified/);
      });
    }
  });

  /** The protected stage as the reviewer's case shows it. */
  async function caseEvidenceOfCheck() {
    const result = await call<{
      review_case: {
        bundle: { stage_evidence: Array<{ stage_key: string; result: unknown; evidence_md: string }> };
      };
    }>(f.as(f.rival), "get_review_case", { review_process_id: processId, node_id: "readers" });
    return result.review_case.bundle.stage_evidence.find((stage) => stage.stage_key === "check");
  }

  it("shows the reviewer a withholding notice in place of the protected stage's evidence", async () => {
    f.setNow(soon);
    const check = await caseEvidenceOfCheck();
    expect(check).toMatchObject({ result: null });
    expect(check!.evidence_md).toMatch(/withheld: this is a sealed evaluation/);
  });

  it("shows the evidence once a manager releases the evaluation early", async () => {
    f.setNow(soon);
    const revisionId = (
      await call<{ revision: { id: string } }>(f.as(f.owner), "get_problem", { problem: slug })
    ).revision.id;
    const prepared = await call<{ acknowledgement_fingerprint: string }>(
      f.as(f.owner),
      "prepare_reference_release",
      {
        revision_id: revisionId,
      },
    );
    await call(f.as(f.owner), "unseal_reference_inputs", {
      revision_id: revisionId,
      reason_md: "The review needs the instance.",
      acknowledgement_fingerprint: prepared.acknowledgement_fingerprint,
    });
    const check = await caseEvidenceOfCheck();
    expect(check).toMatchObject({ result: "verified" });
    expect(check!.evidence_md).not.toMatch(/withheld/);
  });
});
