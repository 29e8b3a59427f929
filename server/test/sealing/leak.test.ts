import { beforeAll, describe, expect, it } from "vitest";
import { sequenceAttestations } from "../../src/attestations/sequence-attestations.ts";
import { signedUrlExpiry, signUrl } from "../../src/core/signing/signed-url.ts";
import { referenceTarget } from "../../src/downloads/download-target.ts";
import { resourceTemplates, tools } from "../../src/edges/mcp/tools/tools.ts";
import { call } from "../attempts/support/solving-fixture.ts";
import { modernRpc, modernRpcText } from "../edges/mcp/support/json-rpc.ts";
import type { TestClient } from "../edges/mcp/support/mcp-clients.ts";
import { type SeededUser, seedCampaign } from "../support/seed-records.ts";
import { describeWithDatabase } from "../support/test-database.ts";
import { TEST_SIGNING_SECRET } from "../support/test-services.ts";
import {
  at,
  BAD_ASSIGNMENT,
  GOOD_ASSIGNMENT,
  SEALED_CLAUSE,
  sealedText,
  sealing,
  T0,
  useSealedFixture,
} from "./support/sealed-fixture.ts";

/** What a row of the table may use: the ids the scenario made. */
interface LeakContext {
  slug: string;
  campaignId: string;
  problemId: string;
  revisionId: string;
  contractId: string;
  implementationId: string;
  attemptId: string;
  artifactId: string;
  submissionId: string;
  verifiedRunId: string;
  refutedRunId: string;
  noteId: string;
  client: TestClient;
  user: SeededUser;
  http(path: string, accept?: string): Promise<string>;
  /** A JSON-RPC method of /mcp (the event methods), its whole answer as text. */
  rpc(method: string, params: Record<string, unknown>): Promise<string>;
  /** The same for a request held open: every server-sent event of it, as text. */
  rpcText(method: string, params: Record<string, unknown>): Promise<string>;
}

/** One read: a tool, a resource or a route, and how to call it. Its whole answer is inspected. */
interface LeakRow {
  /** A tool name, a resource template, or `GET <route>`. */
  covers: string;
  read(c: LeakContext): Promise<string>;
  /** A fixed document (the authoring skill) whose examples quote results: checked for secrets only. */
  document?: true;
}

/** A tool call's full answer (a refusal included) as text. */
const tool =
  (name: string, args: (c: LeakContext) => Record<string, unknown>): LeakRow["read"] =>
  async (c) =>
    JSON.stringify(await c.client.callTool(name, args(c)));

/** The answer with every DSSE payload in it decoded: a signed Statement is inspected like the rest. */
function withStatements(text: string): string {
  const payloads = [...text.matchAll(/\\?"payload\\?":\s*\\?"([A-Za-z0-9+/=]+)/g)];
  return [text, ...payloads.map((match) => Buffer.from(match[1]!, "base64").toString("utf8"))].join("\n");
}

/** A resource read's contents, or the error it raised, as text. */
const resource =
  (uri: (c: LeakContext) => string): LeakRow["read"] =>
  async (c) => {
    try {
      return JSON.stringify(await c.client.readResource(uri(c)));
    } catch (error) {
      return String(error instanceof Error ? `${error.message} ${JSON.stringify(error)}` : error);
    }
  };

/**
 * Every read a participant can make while the evaluation is sealed; the first test fails when
 * the registry has a read tool or template without a row. The reviewer's side is in
 * review-leak.test.ts.
 */
const table: LeakRow[] = [
  { covers: "whoami", read: tool("whoami", () => ({})) },
  { covers: "get_organization", read: tool("get_organization", () => ({ organization: "no-such-team" })) },
  { covers: "list_campaigns", read: tool("list_campaigns", () => ({})) },
  { covers: "get_campaign", read: tool("get_campaign", (c) => ({ campaign: c.campaignId })) },
  { covers: "search_problems", read: tool("search_problems", () => ({ query: "sealed instance" })) },
  { covers: "get_problem", read: tool("get_problem", (c) => ({ problem: c.slug })) },
  { covers: "get_problem", read: tool("get_problem", (c) => ({ problem: c.problemId, revision: 1 })) },
  // The sealed Problem ranks nothing (pass/fail), so this is a refusal that must not leak either.
  { covers: "get_leaderboard", read: tool("get_leaderboard", (c) => ({ problem: c.slug })) },
  { covers: "pick_problem", read: tool("pick_problem", () => ({})) },
  {
    covers: "get_review_protocol",
    read: tool("get_review_protocol", () => ({ review_protocol_id: "rpt_0000000000" })),
  },
  {
    covers: "get_verifier_contract",
    read: tool("get_verifier_contract", (c) => ({ verifier_contract_id: c.contractId })),
  },
  {
    covers: "get_work_management",
    read: tool("get_work_management", (c) => ({ work: { problem: c.slug } })),
  },
  // Work drafts, publication requests, the audit trail and the toolkit (issue 17).
  { covers: "list_work_drafts", read: tool("list_work_drafts", () => ({})) },
  { covers: "get_work_draft", read: tool("get_work_draft", () => ({ draft_id: "wdr_0000000000" })) },
  {
    covers: "read_work_draft_file",
    read: tool("read_work_draft_file", () => ({ draft_id: "wdr_0000000000" })),
  },
  { covers: "list_publication_requests", read: tool("list_publication_requests", () => ({})) },
  { covers: "list_work_audit", read: tool("list_work_audit", () => ({})) },
  { covers: "list_work_audit", read: tool("list_work_audit", (c) => ({ work: { problem: c.slug } })) },
  { covers: "get_authoring_toolkit", read: tool("get_authoring_toolkit", () => ({})) },
  { covers: "get_attempt", read: tool("get_attempt", (c) => ({ attempt_id: c.attemptId })) },
  { covers: "list_my_attempts", read: tool("list_my_attempts", (c) => ({ problem: c.slug })) },
  { covers: "list_attempts", read: tool("list_attempts", (c) => ({ problem: c.slug })) },
  { covers: "search_notes", read: tool("search_notes", () => ({ query: "clause" })) },
  { covers: "get_note", read: tool("get_note", (c) => ({ note_id: c.noteId })) },
  { covers: "list_artifacts", read: tool("list_artifacts", (c) => ({ attempt_id: c.attemptId })) },
  { covers: "list_submissions", read: tool("list_submissions", (c) => ({ problem: c.slug })) },
  { covers: "list_submissions", read: tool("list_submissions", (c) => ({ attempt_id: c.attemptId })) },
  { covers: "get_submission", read: tool("get_submission", (c) => ({ submission_id: c.submissionId })) },
  {
    covers: "get_verification",
    read: tool("get_verification", (c) => ({ verification_run_id: c.refutedRunId })),
  },
  {
    covers: "get_verification",
    read: tool("get_verification", (c) => ({ verification_run_id: c.verifiedRunId })),
  },
  { covers: "list_verifications", read: tool("list_verifications", (c) => ({ problem: c.slug })) },
  {
    covers: "get_sandbox_image_status",
    read: tool("get_sandbox_image_status", () => ({ image: "svc-builtin/sat-assignment-check:1" })),
  },
  {
    covers: "prepare_reference_release",
    read: tool("prepare_reference_release", (c) => ({ revision_id: c.revisionId })),
  },
  { covers: "get_final_entry", read: tool("get_final_entry", (c) => ({ revision_id: c.revisionId })) },
  // The maintainers' and operators' tools (issue 19) as a participant calls them: each refuses,
  // and the refusal names nothing sealed, no yank or redaction detail and no run of others.
  {
    covers: "yank_verifier_implementation",
    read: tool("yank_verifier_implementation", (c) => ({
      verifier_implementation_id: c.implementationId,
      reason_md: "leak?",
    })),
  },
  {
    covers: "yank_review_protocol",
    read: tool("yank_review_protocol", () => ({ review_protocol_id: "rpt_0000000000", reason_md: "leak?" })),
  },
  {
    covers: "revoke_implementation_runs",
    read: tool("revoke_implementation_runs", (c) => ({
      verifier_implementation_id: c.implementationId,
      reason_md: "leak?",
    })),
  },
  {
    covers: "start_manual_verification",
    read: tool("start_manual_verification", (c) => ({ submission_id: c.submissionId })),
  },
  {
    covers: "redact_stage_log",
    read: tool("redact_stage_log", (c) => ({
      verification_run_id: c.refutedRunId,
      stage_key: "check",
      reason: "personal_data",
    })),
  },
  {
    covers: "register_external_system",
    read: tool("register_external_system", () => ({
      system: "Leak Lab",
      attestation_hours: 1,
      attesters: [],
    })),
  },
  {
    covers: "attest_external_stage",
    read: tool("attest_external_stage", (c) => ({
      verification_run_id: c.refutedRunId,
      stage_key: "check",
      result: "verified",
      reference: "leak?",
    })),
  },
  // The review paths a participant without a seat can call; review-leak.test.ts reads every one
  // of them as the reviewer of a sealed Submission.
  { covers: "pick_review", read: tool("pick_review", () => ({})) },
  {
    covers: "get_review_process",
    read: tool("get_review_process", () => ({ review_process_id: "rpr_0000000000" })),
  },
  {
    covers: "get_review_case",
    read: tool("get_review_case", () => ({ review_process_id: "rpr_0000000000", node_id: "readers" })),
  },
  { covers: "list_my_review_assignments", read: tool("list_my_review_assignments", () => ({})) },
  {
    covers: "get_review_assignment",
    read: tool("get_review_assignment", () => ({ assignment_id: "ras_0000000000" })),
  },
  // Connected agents: jobs, criteria changes and every event the caller may see (a finished run
  // of the submitter's among them, which names the run but never its withheld outcome).
  { covers: "list_agent_jobs", read: tool("list_agent_jobs", () => ({})) },
  { covers: "list_criteria_changes", read: tool("list_criteria_changes", () => ({})) },
  {
    covers: "get_criteria_change",
    read: tool("get_criteria_change", () => ({ criteria_change_id: "crc_0000000000" })),
  },
  { covers: "events/list", read: (c) => c.rpc("events/list", { limit: 200 }) },
  { covers: "events/subscriptions", read: (c) => c.rpc("events/subscriptions", { include_ended: true }) },
  {
    covers: "events/deliveries",
    read: (c) => c.rpc("events/deliveries", { subscription_id: "esb_0000000000" }),
  },
  {
    // Every event the caller may see, from the first: a stream subscription read from cursor 0,
    // ended by unsubscribing (its first batch goes out before the stream sees the end).
    covers: "events/stream",
    read: async (c) => {
      const subscribed = JSON.parse(await c.rpc("events/subscribe", { delivery: { type: "stream" } }));
      const subscriptionId = subscribed.result.subscription.subscription_id as string;
      const streamed = c.rpcText("events/stream", { subscription_id: subscriptionId, cursor: "0" });
      for (;;) {
        const listed = JSON.parse(await c.rpc("events/subscriptions", {}));
        const held = listed.result.subscriptions.find(
          (s: { subscription_id: string }) => s.subscription_id === subscriptionId,
        );
        if (held?.state.stream_open) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await c.rpc("events/unsubscribe", { subscription_id: subscriptionId });
      return await streamed;
    },
  },
  // start_attempt is a write, but it returns the same resource lists as get_problem.
  { covers: "start_attempt", read: tool("start_attempt", (c) => ({ problem: c.slug })) },
  {
    covers: "svc://skill-versions/{skill_version_id}/{+path}",
    read: resource(() => "svc://skill-versions/skv_0000000000/"),
  },
  {
    covers: "svc://problem-revisions/{problem_revision_id}/reference/{key}",
    read: resource((c) => `svc://problem-revisions/${c.revisionId}/reference/instance`),
  },
  {
    covers: "svc://problem-revisions/{problem_revision_id}/reference/{key}",
    read: resource((c) => `svc://problem-revisions/${c.revisionId}/reference/notes`),
  },
  {
    covers: "svc://problem-revisions/{problem_revision_id}/checkers/{stage_key}/{filename}",
    read: resource((c) => `svc://problem-revisions/${c.revisionId}/checkers/check/checker.py`),
  },
  {
    covers: "svc://authoring/skill/latest",
    read: resource(() => "svc://authoring/skill/latest"),
    document: true,
  },
  {
    covers: "svc://authoring/skill/latest/{+path}",
    read: resource(() => "svc://authoring/skill/latest/SKILL.md"),
    document: true,
  },
  {
    covers: "svc://review-processes/{review_process_id}",
    read: resource(() => "svc://review-processes/rpr_0000000000"),
  },
  { covers: "svc://artifacts/{artifact_id}", read: resource((c) => `svc://artifacts/${c.artifactId}`) },
  {
    covers: "svc://verifications/{verification_run_id}",
    read: resource((c) => `svc://verifications/${c.refutedRunId}`),
  },
  {
    covers: "svc://verifications/{verification_run_id}/stages/{stage_key}/log",
    read: resource((c) => `svc://verifications/${c.refutedRunId}/stages/check/log`),
  },
  {
    covers: "svc://verifications/{verification_run_id}/stages/{stage_key}/evidence",
    read: resource((c) => `svc://verifications/${c.refutedRunId}/stages/check/evidence`),
  },
  { covers: "GET /api/problems", read: (c) => c.http("/api/problems?q=sealed") },
  { covers: "GET /api/problems/{problem}", read: (c) => c.http(`/api/problems/${c.slug}`) },
  {
    covers: "GET /api/problems/{problem}/leaderboard",
    read: (c) => c.http(`/api/problems/${c.slug}/leaderboard`),
  },
  {
    covers: "GET /api/problem-revisions/{prv}/reference/{key}",
    read: (c) => c.http(`/api/problem-revisions/${c.revisionId}/reference/instance`),
  },
  {
    covers: "GET /api/problem-revisions/{prv}/checkers/{stage_key}/{filename}",
    read: (c) => c.http(`/api/problem-revisions/${c.revisionId}/checkers/check/checker.py`),
  },
  { covers: "GET /api/verifications/{id}", read: (c) => c.http(`/api/verifications/${c.refutedRunId}`) },
  { covers: "GET /verifications/{id}", read: (c) => c.http(`/verifications/${c.refutedRunId}`, "text/html") },
  {
    covers: "GET /verifications/{id}",
    read: (c) => c.http(`/verifications/${c.refutedRunId}`, "application/json"),
  },
  {
    covers: "GET /verifications/{id}/stages/{stage_key}/log",
    read: (c) => c.http(`/verifications/${c.refutedRunId}/stages/check/log`),
  },
  {
    covers: "GET /verifications/{id}/stages/{stage_key}/evidence",
    read: (c) => c.http(`/verifications/${c.refutedRunId}/stages/check/evidence`),
  },
  {
    covers: "GET /verifications/{id}/stages/{stage_key}/evidence/{path}",
    read: (c) => c.http(`/verifications/${c.refutedRunId}/stages/check/evidence/summary.json`),
  },
  {
    covers: "GET /review-processes/{id}",
    read: (c) => c.http("/review-processes/rpr_0000000000", "text/html"),
  },
  // The authoring pages show the caller's own work only: a participant's is empty of the sealed problem.
  { covers: "GET /work", read: (c) => c.http("/work", "text/html") },
  { covers: "GET /work", read: (c) => c.http("/work", "application/json") },
  { covers: "GET /work/uploads/{id}", read: (c) => c.http("/work/uploads/aup_0000000000", "text/html") },
  { covers: "GET /work/drafts", read: (c) => c.http("/work/drafts", "text/html") },
  { covers: "GET /work/drafts/{id}", read: (c) => c.http("/work/drafts/wdr_0000000000", "text/html") },
  {
    covers: "GET /work/publication-requests",
    read: (c) => c.http("/work/publication-requests", "text/html"),
  },
  // Attestations (issue 34): withheld values are commitments inside the signed Statements.
  {
    covers: "get_run_attestations",
    read: async (c) =>
      withStatements(await tool("get_run_attestations", () => ({ verification_run_id: c.refutedRunId }))(c)),
  },
  {
    covers: "get_run_attestations",
    read: async (c) =>
      withStatements(await tool("get_run_attestations", () => ({ verification_run_id: c.verifiedRunId }))(c)),
  },
  {
    covers: "get_transparency_log",
    read: tool("get_transparency_log", () => ({ log_index: 0, from_size: 1 })),
  },
  {
    covers: "GET /api/verifications/{id}/attestations",
    read: async (c) => withStatements(await c.http(`/api/verifications/${c.refutedRunId}/attestations`)),
  },
  { covers: "GET /api/transparency-log", read: (c) => c.http("/api/transparency-log?log_index=1") },
  {
    covers: "GET /.well-known/svc-attestation-keys",
    read: (c) => c.http("/.well-known/svc-attestation-keys"),
  },
  {
    covers: "GET /api/verifier-implementations/{id}/program",
    read: (c) => c.http("/api/verifier-implementations/vfi_0000000000/program"),
  },
  {
    covers: "GET /dl/<payload>.<signature>",
    read: (c) =>
      c.http(
        signUrl(
          { target: referenceTarget(c.revisionId, "instance"), expiresAt: signedUrlExpiry(T0) },
          TEST_SIGNING_SECRET,
        ),
      ),
  },
];

/**
 * Outcomes a participant must not see while final_only withholds them: a run or stage `result`
 * (in JSON, or JSON quoted inside a tool's text content) or the HTML page's result badge. The
 * contract is pass_fail, so no score exists to leak (search_notes has a similarity `score`).
 */
const WITHHELD_OUTCOME = /"result\\?":\s*\\?"(verified|refuted|inconclusive|error)|>(verified|refuted)</;

describeWithDatabase("nothing sealed leaks while sealed", () => {
  const f = useSealedFixture();
  const ids = {} as Omit<LeakContext, "client" | "user" | "http">;

  beforeAll(async () => {
    f.setNow(T0);
    ids.slug = "leaky";
    ids.campaignId = await seedCampaign(f.services.sql, {
      owner: f.owner.id,
      slug: "leak-campaign",
      visibility: "listed",
    });
    const problem = await f.sealedProblem(
      ids.slug,
      sealing({ mode: "final_only", releaseAt: at(30), closesAt: at(20), entries: "independent" }),
      { campaignId: ids.campaignId },
    );
    ids.problemId = problem.problemId;
    ids.revisionId = problem.revisionId;
    ids.contractId = f.contractId;
    const [implementation] = await f.services.sql<{ id: string }[]>`
      select id from verifier_implementations where verifier_contract_id = ${f.contractId} limit 1`;
    ids.implementationId = implementation!.id;
    const good = await f.submit(f.solver, ids.slug, GOOD_ASSIGNMENT);
    await f.execute(good.verification_run_id);
    const bad = await f.submit(f.solver, ids.slug, BAD_ASSIGNMENT);
    await f.execute(bad.verification_run_id);
    ids.attemptId = bad.attempt_id;
    ids.submissionId = bad.submission_id;
    ids.verifiedRunId = good.verification_run_id;
    ids.refutedRunId = bad.verification_run_id;
    // Their attestations are signed now, while the evaluation is sealed.
    await sequenceAttestations(f.services);
    const listed = await call<{ artifacts: Array<{ id: string }> }>(f.as(f.solver), "list_artifacts", {
      attempt_id: bad.attempt_id,
    });
    ids.artifactId = listed.artifacts[0]!.id;
    const note = await call<{ note: { id: string } }>(f.as(f.solver), "add_note", {
      attempt_id: bad.attempt_id,
      body_md: "Trying another clause order.",
    });
    ids.noteId = note.note.id;
    await call(f.as(f.solver), "nominate_final_entry", { submission_id: bad.submission_id });
    // The manager sees what the participant must not: the scenario really holds the secrets.
    const managed = await call<{ verification: { result: string; evidence_md: string } }>(
      f.as(f.owner),
      "get_verification",
      { verification_run_id: bad.verification_run_id },
    );
    expect(managed.verification.result).toBe("refuted");
    expect(managed.verification.evidence_md).toContain(SEALED_CLAUSE);
  }, 60_000);

  it("signs the submitter's attestations while sealed, with the withheld outcome as a commitment only", async () => {
    f.setNow(at(1));
    const text = withStatements(
      JSON.stringify(
        await f.as(f.solver).callTool("get_run_attestations", { verification_run_id: ids.refutedRunId }),
      ),
    );
    expect(text).toContain("https://svc.dev/attestations/verification-run/v1");
    expect(text).toMatch(/"result":\{"commitment":"sha256:[0-9a-f]{64}"\}/);
    expect(text).toMatch(/"openings\\?":null/);
  });

  it("has a row for every read tool, resource template and read route", () => {
    const covered = new Set(table.map((row) => row.covers));
    for (const t of tools.filter((t) => t.kind === "read")) expect(covered, t.name).toContain(t.name);
    for (const template of resourceTemplates)
      expect(covered, template.uriTemplate).toContain(template.uriTemplate);
  });

  // The sealed binding's content_hash is not among them: spec 4.1 lists it in a sealed entry's
  // metadata and 2.3 requires it in the canonical revision (docs/sealing.md).
  const secrets = (): string[] => [
    sealedText(ids.slug),
    sealedText(ids.slug).replace(/\n/g, "\\n"),
    Buffer.from(sealedText(ids.slug)).toString("base64"),
    SEALED_CLAUSE,
  ];

  for (const who of ["solver", "rival"] as const) {
    describe(`as the ${who === "solver" ? "submitter" : "user who is neither owner nor submitter"}`, () => {
      for (const [index, row] of table.entries()) {
        it(`${row.covers} (#${index}) shows no sealed byte, hash or withheld outcome`, async () => {
          f.setNow(at(1));
          const user = f[who];
          const text = await row.read({
            ...ids,
            client: f.as(user),
            user,
            http: async (path, accept) => {
              const response = await f.http(path, user, accept);
              return `${response.status} ${JSON.stringify([...response.headers])} ${await response.text()}`;
            },
            rpc: async (method, params) =>
              JSON.stringify((await modernRpc(f.url, user.token, method, params)).body),
            rpcText: (method, params) => modernRpcText(f.url, user.token, method, params),
          });
          for (const secret of secrets()) expect(text).not.toContain(secret);
          if (!row.document) expect(text).not.toMatch(WITHHELD_OUTCOME);
        });
      }
    });
  }
});
