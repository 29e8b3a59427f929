import { expect, it } from "vitest";
import {
  call,
  refuse,
  rolesContract,
  startOn,
  uploadText,
  useSolvingFixture,
} from "../attempts/support/solving-fixture.ts";
import { seedContract, seedProblem } from "../support/seed-records.ts";
import { describeWithDatabase } from "../support/test-database.ts";

interface SubmissionRecord {
  id: string;
  attempt_id: string;
  status: string;
  withdrawn_at: string | null;
  artifacts: Array<{ role: string; artifact_id: string; content_hash: string; size_bytes: number }>;
  verification_run_ids: string[];
  latest_verification: { id: string; status: string; result: string | null } | null;
}

const ANSWER = '{"x": 42}';
const PROOF = "It holds because 42 is the answer.";

describeWithDatabase("submissions", () => {
  const f = useSolvingFixture();

  /** An active attempt on `problem` with a valid answer and proof uploaded. */
  async function prepared(problem = "graded") {
    const client = f.as(f.solver);
    const attempt = await startOn(client, problem);
    const answer = await uploadText(client, attempt, "answer.json", ANSWER);
    const proof = await uploadText(client, attempt, "proof.txt", PROOF);
    return { client, attempt, answer, proof };
  }

  const counts = async () => {
    const [row] = await f.services.sql<{ submissions: number; runs: number }[]>`
      select (select count(*)::int from submissions) as submissions,
        (select count(*)::int from verification_runs) as runs`;
    return row!;
  };

  it("binds artifacts to the contract's roles and queues a run with the job in one transaction", async () => {
    const { client, attempt, answer, proof } = await prepared();
    const created = await call<{ submission: SubmissionRecord; verification_run_id: string }>(
      client,
      "create_submission",
      {
        attempt_id: attempt,
        // Given out of order: stored in the contract's role order.
        artifacts: [
          { role: "proof", artifact_id: proof },
          { role: "answer", artifact_id: answer },
        ],
      },
    );
    expect(created.verification_run_id).toMatch(/^vrn_/);
    expect(created.submission).toMatchObject({
      attempt_id: attempt,
      status: "active",
      verification_run_ids: [created.verification_run_id],
      latest_verification: { id: created.verification_run_id, status: "queued", result: null },
    });
    expect(created.submission.artifacts.map((a) => [a.role, a.artifact_id])).toEqual([
      ["answer", answer],
      ["proof", proof],
    ]);
    const [run] = await f.services.sql<
      { status: string; trigger: string; inputs: { artifacts: unknown[] } }[]
    >`
      select status, trigger, inputs from verification_runs where id = ${created.verification_run_id}`;
    expect(run).toMatchObject({ status: "queued", trigger: "submission" });
    expect(run!.inputs.artifacts).toEqual(created.submission.artifacts);
    const [job] = await f.services.sql<{ count: number }[]>`
      select count(*)::int as count from graphile_worker.jobs where key = ${created.verification_run_id}`;
    expect(job!.count).toBe(1);
    // The summary in get_problem follows.
    const envelope = await call<{ attempt_summary: Record<string, unknown> }>(client, "get_problem", {
      problem: "graded",
    });
    expect(envelope.attempt_summary).toMatchObject({
      submissions: expect.any(Number),
      latest_verification: { verification_run_id: created.verification_run_id, status: "queued" },
    });
  });

  it("refuses bindings that miss the requirements, naming every problem", async () => {
    const { client, attempt, answer, proof } = await prepared();
    const text = await uploadText(client, attempt, "answer.txt", ANSWER);
    const big = await uploadText(client, attempt, "big.json", JSON.stringify({ pad: "x".repeat(100) }));
    const unmet = async (artifacts: Array<{ role: string; artifact_id: string }>) =>
      refuse(client, "create_submission", { attempt_id: attempt, artifacts });
    const missing = await unmet([{ role: "answer", artifact_id: answer }]);
    expect(missing).toMatchObject({ code: "requirements_unmet", problems: [{ field: "artifacts" }] });
    expect(missing.message).toContain('required role "proof" is not bound');
    const unknown = await unmet([
      { role: "answer", artifact_id: answer },
      { role: "proof", artifact_id: proof },
      { role: "extra", artifact_id: proof },
    ]);
    expect(unknown.problems).toEqual([
      { field: "artifacts.2.role", message: expect.stringContaining('"extra"') },
    ]);
    const twice = await unmet([
      { role: "answer", artifact_id: answer },
      { role: "answer", artifact_id: answer },
      { role: "proof", artifact_id: proof },
    ]);
    expect(twice.problems).toEqual([
      { field: "artifacts.1.role", message: expect.stringContaining("bound twice") },
    ]);
    const media = await unmet([
      { role: "answer", artifact_id: text },
      { role: "proof", artifact_id: proof },
    ]);
    expect(media.problems).toEqual([
      { field: "artifacts.0.artifact_id", message: expect.stringContaining("takes application/json") },
    ]);
    const size = await unmet([
      { role: "answer", artifact_id: big },
      { role: "proof", artifact_id: proof },
    ]);
    expect(size.problems).toEqual([
      { field: "artifacts.0.artifact_id", message: expect.stringContaining("at most 64") },
    ]);
    expect(await unmet([])).toMatchObject({ code: "requirements_unmet" });
    expect(
      await refuse(client, "create_submission", {
        attempt_id: attempt,
        artifacts: [{ role: "Bad Role", artifact_id: answer }],
      }),
    ).toMatchObject({ code: "invalid_input", field: "artifacts.0.role" });
    const nothing = await f.services.sql<{ count: number }[]>`
      select count(*)::int as count from submissions where attempt_id = ${attempt}`;
    expect(nothing[0]!.count).toBe(0);
  });

  it("refuses artifacts that are not live artifacts of this attempt of the caller", async () => {
    const { client, attempt, answer, proof } = await prepared();
    const elsewhere = await startOn(client, "graded");
    const foreign = await uploadText(client, elsewhere, "answer.json", ANSWER);
    const moved = await refuse(client, "create_submission", {
      attempt_id: attempt,
      artifacts: [
        { role: "answer", artifact_id: foreign },
        { role: "proof", artifact_id: proof },
      ],
    });
    expect(moved).toMatchObject({ code: "invalid_input", field: "artifacts.0.artifact_id" });
    expect(moved.message).toContain("reuse_artifact");
    const rivalAttempt = await startOn(f.as(f.rival), "graded");
    const rivals = await uploadText(f.as(f.rival), rivalAttempt, "answer.json", ANSWER);
    expect(
      await refuse(client, "create_submission", {
        attempt_id: attempt,
        artifacts: [
          { role: "answer", artifact_id: rivals },
          { role: "proof", artifact_id: proof },
        ],
      }),
    ).toMatchObject({ code: "not_yours", field: "artifacts.0.artifact_id" });
    await call(client, "withdraw_artifact", { artifact_id: answer });
    expect(
      await refuse(client, "create_submission", {
        attempt_id: attempt,
        artifacts: [
          { role: "answer", artifact_id: answer },
          { role: "proof", artifact_id: proof },
        ],
      }),
    ).toMatchObject({ code: "artifact_withdrawn" });
    expect(
      await refuse(f.as(f.rival), "create_submission", { attempt_id: attempt, artifacts: [] }),
    ).toMatchObject({ code: "not_yours" });
  });

  it("refuses a submission on an ended attempt, an archived problem or after the cutoff", async () => {
    const ended = await prepared();
    await call(ended.client, "end_attempt", {
      attempt_id: ended.attempt,
      outcome: "solved",
      note_md: "Done.",
    });
    const bindings = (p: { answer: string; proof: string }) => [
      { role: "answer", artifact_id: p.answer },
      { role: "proof", artifact_id: p.proof },
    ];
    expect(
      await refuse(ended.client, "create_submission", {
        attempt_id: ended.attempt,
        artifacts: bindings(ended),
      }),
    ).toMatchObject({ code: "attempt_ended" });

    const contract = await seedContract(f.services.sql, f.owner.id, {
      ...rolesContract(),
      title: "Archived",
    });
    const archiving = await seedProblem(f.services, {
      owner: f.owner.id,
      slug: "soon-archived",
      visibility: "listed",
      revision: { statement: "x", verifierContractId: contract },
    });
    const onArchived = await prepared("soon-archived");
    await f.services.sql`
      update problems set status = 'archived', archived_at = now() where id = ${archiving.problemId}`;
    expect(
      await refuse(onArchived.client, "create_submission", {
        attempt_id: onArchived.attempt,
        artifacts: bindings(onArchived),
      }),
    ).toMatchObject({ code: "problem_archived" });

    await seedProblem(f.services, {
      owner: f.owner.id,
      slug: "cut-off",
      visibility: "listed",
      revision: {
        statement: "x",
        sealing: {
          sealed_until: "2999-01-01T00:00:00Z",
          unsealed_at: null,
          submission_closes_at: "2000-01-01T00:00:00Z",
        },
      },
    });
    const late = await prepared("cut-off");
    expect(
      await refuse(late.client, "create_submission", { attempt_id: late.attempt, artifacts: bindings(late) }),
    ).toMatchObject({ code: "submissions_closed" });
  });

  it("records a submission without a run when the revision pins no contract", async () => {
    const { client, attempt, answer } = await prepared("free");
    const created = await call<{ submission: SubmissionRecord; verification_run_id: null }>(
      client,
      "create_submission",
      {
        attempt_id: attempt,
        artifacts: [{ role: "anything", artifact_id: answer }],
      },
    );
    expect(created.verification_run_id).toBeNull();
    expect(created.submission.verification_run_ids).toEqual([]);
    expect(await refuse(client, "create_submission", { attempt_id: attempt, artifacts: [] })).toMatchObject({
      code: "requirements_unmet",
    });
  });

  it("accepts a text-only submission when the contract says accepts_text_only", async () => {
    const contract = await seedContract(f.services.sql, f.owner.id, rolesContract({ textOnly: true }));
    await seedProblem(f.services, {
      owner: f.owner.id,
      slug: "text-only",
      visibility: "listed",
      revision: { statement: "Answer in your notes.", verifierContractId: contract },
    });
    const { client, attempt, answer } = await prepared("text-only");
    const created = await call<{ verification_run_id: string }>(client, "create_submission", {
      attempt_id: attempt,
      artifacts: [],
    });
    expect(created.verification_run_id).toMatch(/^vrn_/);
    // Once artifacts are given, every required role must be bound.
    expect(
      await refuse(client, "create_submission", {
        attempt_id: attempt,
        artifacts: [{ role: "answer", artifact_id: answer }],
      }),
    ).toMatchObject({ code: "requirements_unmet" });
  });

  it("leaves neither submission nor run when queuing the run fails", async () => {
    const { client, attempt, answer, proof } = await prepared();
    const before = await counts();
    const { sql } = f.services;
    await sql.unsafe(`
      create function test_fail_run() returns trigger language plpgsql as $$
      begin raise exception 'runs are broken'; end $$;
      create trigger test_fail_run before insert on verification_runs for each row execute function test_fail_run();`);
    try {
      const failed = await refuse(client, "create_submission", {
        attempt_id: attempt,
        artifacts: [
          { role: "answer", artifact_id: answer },
          { role: "proof", artifact_id: proof },
        ],
      });
      expect(failed.code).toBe("internal");
    } finally {
      await sql.unsafe("drop trigger test_fail_run on verification_runs; drop function test_fail_run();");
    }
    expect(await counts()).toEqual(before);
  });

  it("takes concurrent submissions on one attempt in turn, each with its own run", async () => {
    const { client, attempt, answer, proof } = await prepared();
    const artifacts = [
      { role: "answer", artifact_id: answer },
      { role: "proof", artifact_id: proof },
    ];
    const results = await Promise.all(
      [1, 2, 3, 4].map(() =>
        call<{ submission: SubmissionRecord; verification_run_id: string }>(client, "create_submission", {
          attempt_id: attempt,
          artifacts,
        }),
      ),
    );
    expect(new Set(results.map((r) => r.submission.id)).size).toBe(4);
    expect(new Set(results.map((r) => r.verification_run_id)).size).toBe(4);
    // Racing end_attempt: every submission either landed before the end or was refused after it.
    const race = await Promise.all([
      client.callTool("create_submission", { attempt_id: attempt, artifacts }),
      client.callTool("end_attempt", { attempt_id: attempt, outcome: "solved", note_md: "Done." }),
      client.callTool("create_submission", { attempt_id: attempt, artifacts }),
    ]);
    expect(race[1]!.isError).toBeFalsy();
    const [{ ended_at }] = await f.services.sql<
      { ended_at: Date }[]
    >`select ended_at from attempts where id = ${attempt}`;
    const landed = await f.services.sql<{ created_at: Date }[]>`
      select created_at from submissions where attempt_id = ${attempt}`;
    expect(landed.every((s) => s.created_at <= ended_at)).toBe(true);
    for (const result of [race[0]!, race[2]!].filter((r) => r.isError)) {
      expect(JSON.parse(result.content[0]!.text!).error.code).toBe("attempt_ended");
    }
  });

  it("withdraws a submission once and leaves its run alone", async () => {
    const { client, attempt, answer, proof } = await prepared();
    const created = await call<{ submission: SubmissionRecord; verification_run_id: string }>(
      client,
      "create_submission",
      {
        attempt_id: attempt,
        artifacts: [
          { role: "answer", artifact_id: answer },
          { role: "proof", artifact_id: proof },
        ],
      },
    );
    const id = created.submission.id;
    expect(await refuse(f.as(f.rival), "withdraw_submission", { submission_id: id })).toMatchObject({
      code: "not_yours",
    });
    const withdrawn = await call<{ submission: SubmissionRecord }>(client, "withdraw_submission", {
      submission_id: id,
    });
    expect(withdrawn.submission).toMatchObject({
      status: "withdrawn",
      verification_run_ids: [created.verification_run_id],
    });
    const again = await call<{ submission: SubmissionRecord }>(client, "withdraw_submission", {
      submission_id: id,
    });
    expect(again.submission.withdrawn_at).toBe(withdrawn.submission.withdrawn_at);
    const [run] = await f.services.sql<{ status: string }[]>`
      select status from verification_runs where id = ${created.verification_run_id}`;
    expect(run!.status).toBe("queued");
    expect(
      await refuse(client, "withdraw_submission", { submission_id: "sub_00000000000000000000" }),
    ).toMatchObject({
      code: "not_found",
    });
  });

  it("lists and reads submissions by attempt or problem, for the owner and the problem's managers", async () => {
    const { client, attempt, answer, proof } = await prepared();
    const created = await call<{ submission: SubmissionRecord }>(client, "create_submission", {
      attempt_id: attempt,
      artifacts: [
        { role: "answer", artifact_id: answer },
        { role: "proof", artifact_id: proof },
      ],
    });
    const byAttempt = await call<{ submissions: SubmissionRecord[] }>(client, "list_submissions", {
      attempt_id: attempt,
    });
    expect(byAttempt.submissions.map((s) => s.id)).toEqual([created.submission.id]);
    const byProblem = await call<{ submissions: SubmissionRecord[] }>(client, "list_submissions", {
      problem: "graded",
    });
    expect(byProblem.submissions.map((s) => s.id)).toContain(created.submission.id);
    expect(
      (
        await call<{ submissions: SubmissionRecord[] }>(f.as(f.rival), "list_submissions", {
          problem: "graded",
        })
      ).submissions.map((s) => s.id),
    ).not.toContain(created.submission.id);
    expect(await refuse(client, "list_submissions", {})).toMatchObject({ code: "invalid_input" });
    expect(
      await refuse(client, "list_submissions", { attempt_id: attempt, problem: "graded" }),
    ).toMatchObject({
      code: "invalid_input",
    });
    const got = await call<{ submission: SubmissionRecord }>(f.as(f.owner), "get_submission", {
      submission_id: created.submission.id,
    });
    expect(got.submission.id).toBe(created.submission.id);
    expect(
      await refuse(f.as(f.rival), "get_submission", { submission_id: created.submission.id }),
    ).toMatchObject({
      code: "not_yours",
    });
    expect(await refuse(f.as(f.rival), "list_submissions", { attempt_id: attempt })).toMatchObject({
      code: "not_yours",
    });
  });

  it("hands a continuation the predecessor's results, evidence and pending reviews", async () => {
    const contract = await seedContract(f.services.sql, f.owner.id, rolesContract({ review: true }));
    await seedProblem(f.services, {
      owner: f.owner.id,
      slug: "reviewed",
      visibility: "listed",
      revision: { statement: "Convince the reviewers.", verifierContractId: contract },
    });
    const { client, attempt, answer, proof } = await prepared("reviewed");
    const artifacts = [
      { role: "answer", artifact_id: answer },
      { role: "proof", artifact_id: proof },
    ];
    const pending = await call<{ submission: SubmissionRecord; verification_run_id: string }>(
      client,
      "create_submission",
      {
        attempt_id: attempt,
        artifacts,
      },
    );
    const refuted = await call<{ submission: SubmissionRecord; verification_run_id: string }>(
      client,
      "create_submission",
      {
        attempt_id: attempt,
        artifacts,
      },
    );
    await f.services.sql`
      update verification_runs set status = 'finished', result = 'refuted', evidence_md = 'Clause 3 is false.',
        started_at = now(), finished_at = now()
      where id = ${refuted.verification_run_id}`;
    await call(client, "end_attempt", {
      attempt_id: attempt,
      outcome: "partial",
      note_md: "One refuted, one pending.",
    });
    const next = await call<{ continues: { submissions: Array<Record<string, unknown>> } }>(
      client,
      "start_attempt",
      {
        problem: "reviewed",
        continues_attempt_id: attempt,
      },
    );
    expect(next.continues.submissions).toEqual([
      expect.objectContaining({
        id: pending.submission.id,
        verification: expect.objectContaining({
          id: pending.verification_run_id,
          status: "queued",
          evidence_md: "",
        }),
        review: { status: "pending" },
      }),
      expect.objectContaining({
        id: refuted.submission.id,
        verification: expect.objectContaining({ result: "refuted", evidence_md: "Clause 3 is false." }),
        review: null,
      }),
    ]);
  });
});
