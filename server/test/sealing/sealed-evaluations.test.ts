import { beforeAll, describe, expect, it } from "vitest";
import { call, refuse } from "../attempts/support/solving-fixture.ts";
import type { SeededProblem } from "../support/seed-records.ts";
import { describeWithDatabase } from "../support/test-database.ts";
import {
  at,
  BAD_ASSIGNMENT,
  GOOD_ASSIGNMENT,
  SEALED_CLAUSE,
  sealedHash,
  sealedText,
  sealing,
  T0,
  useSealedFixture,
} from "./support/sealed-fixture.ts";

interface ReferenceEntry {
  key: string;
  sealed: boolean;
  resource_uri?: string;
  download_url?: string;
  expires_at?: string;
}

interface Envelope {
  revision: { id: string; sealing: Record<string, unknown> };
  reference_resources: ReferenceEntry[];
  submission_allowance: Record<string, unknown> | null;
}

interface Run {
  result: string | null;
  score: number | null;
  evidence_md: string;
  stage_results: Array<{ stage_key: string; result: string | null; evidence_md: string; log: unknown }>;
}

describeWithDatabase("sealed evaluations", () => {
  const f = useSealedFixture();

  describe("acceptance: sealed bytes over MCP and HTTP", () => {
    let problem: SeededProblem;
    beforeAll(async () => {
      f.setNow(T0);
      problem = await f.sealedProblem(
        "accept-sealed",
        sealing({ mode: "immediate", max: 2, windowHours: 24 }),
      );
    });

    it("gives a participant metadata only, and refuses their reads of the bytes", async () => {
      const envelope = await call<Envelope>(f.as(f.solver), "get_problem", { problem: "accept-sealed" });
      const sealed = envelope.reference_resources.find((r) => r.key === "instance")!;
      expect(sealed).toMatchObject({ sealed: true, sealed_until: at(60) });
      expect(sealed).not.toHaveProperty("resource_uri");
      expect(sealed).not.toHaveProperty("download_url");
      expect(sealed).not.toHaveProperty("expires_at");
      const uri = `svc://problem-revisions/${problem.revisionId}/reference/instance`;
      await expect(f.as(f.solver).readResource(uri)).rejects.toThrow(/sealed/);
      const response = await f.http(
        `/api/problem-revisions/${problem.revisionId}/reference/instance`,
        f.solver,
      );
      expect(response.status).toBe(403);
      const body = await response.text();
      expect(body).toContain("sealed");
      expect(body).not.toContain(sealedText("accept-sealed"));
    });

    it("lets the manager read the bytes through the resource and the bearer route, but gives no URL", async () => {
      const envelope = await call<Envelope>(f.as(f.owner), "get_problem", { problem: "accept-sealed" });
      const sealed = envelope.reference_resources.find((r) => r.key === "instance")!;
      expect(sealed).not.toHaveProperty("resource_uri");
      expect(sealed).not.toHaveProperty("download_url");
      const [content] = await f
        .as(f.owner)
        .readResource(`svc://problem-revisions/${problem.revisionId}/reference/instance`);
      expect(content!.text).toBe(sealedText("accept-sealed"));
      const response = await f.http(
        `/api/problem-revisions/${problem.revisionId}/reference/instance`,
        f.owner,
      );
      expect(response.status).toBe(200);
      expect(response.headers.get("x-svc-content-hash")).toBe(sealedHash("accept-sealed"));
      expect(await response.text()).toBe(sealedText("accept-sealed"));
      const admin = await f.http(`/api/problem-revisions/${problem.revisionId}/reference/instance`, f.admin);
      expect(await admin.text()).toBe(sealedText("accept-sealed"));
    });

    it("refuses a participant's third submission inside the window with the time the next slot frees up", async () => {
      f.setNow(at(1));
      const first = await f.submit(f.solver, "accept-sealed", GOOD_ASSIGNMENT);
      f.setNow(new Date(Date.parse(at(1)) + 3_600_000));
      await f.submit(f.solver, "accept-sealed", GOOD_ASSIGNMENT);
      f.setNow(new Date(Date.parse(at(1)) + 7_200_000));
      const client = f.as(f.solver);
      const allowance = (await call<Envelope>(client, "get_problem", { problem: "accept-sealed" }))
        .submission_allowance!;
      expect(allowance).toMatchObject({
        evaluation_id: expect.stringMatching(/^sev_[0-9a-f]{32}$/),
        limit: { max_submissions: 2, window_hours: 24 },
        used: 2,
        remaining: 0,
        next_reset_at: at(2),
        submission_closes_at: null,
      });
      const attemptId = (
        await call<{ attempt: { id: string } }>(client, "get_attempt", {
          attempt_id: first.attempt_id,
        })
      ).attempt.id;
      const artifact = await call<{ artifact: { id: string } }>(client, "upload_artifact", {
        attempt_id: attemptId,
        filename: "third.txt",
        content_text: GOOD_ASSIGNMENT,
        media_type: "text/plain",
      });
      const refusal = await refuse(client, "create_submission", {
        attempt_id: attemptId,
        artifacts: [{ role: "assignment", artifact_id: artifact.artifact.id }],
      });
      expect(refusal).toMatchObject({
        code: "submission_quota_exhausted",
        next_slot_at: at(2),
        used: 2,
        limit: { max_submissions: 2, window_hours: 24 },
      });
      expect(refusal.message).toContain(at(2));
    });
  });

  describe("quota edges on the injectable clock", () => {
    it("counts withdrawn submissions and frees a slot exactly at the window boundary", async () => {
      f.setNow(T0);
      await f.sealedProblem("quota-edge", sealing({ mode: "immediate", max: 1, windowHours: 10 }));
      const first = await f.submit(f.rival, "quota-edge", GOOD_ASSIGNMENT);
      await call(f.as(f.rival), "withdraw_submission", { submission_id: first.submission_id });
      const boundary = new Date(T0.getTime() + 10 * 3_600_000);
      f.setNow(new Date(boundary.getTime() - 1));
      const client = f.as(f.rival);
      const artifact = await call<{ artifact: { id: string } }>(client, "upload_artifact", {
        attempt_id: first.attempt_id,
        filename: "again.txt",
        content_text: GOOD_ASSIGNMENT,
        media_type: "text/plain",
      });
      const args = {
        attempt_id: first.attempt_id,
        artifacts: [{ role: "assignment", artifact_id: artifact.artifact.id }],
      };
      const refusal = await refuse(client, "create_submission", args);
      expect(refusal).toMatchObject({
        code: "submission_quota_exhausted",
        next_slot_at: boundary.toISOString(),
      });
      f.setNow(boundary);
      const accepted = await call<{ submission: { id: string } }>(client, "create_submission", args);
      expect(accepted.submission.id).toMatch(/^sub_/);
    });

    it("shares the quota across revisions of one evaluation, and reruns consume none", async () => {
      f.setNow(T0);
      const problem = await f.sealedProblem("quota-shared", sealing({ mode: "immediate", max: 2 }));
      const first = await f.submit(f.rival, "quota-shared", GOOD_ASSIGNMENT);
      await call(f.as(f.rival), "rerun_verification", { submission_id: first.submission_id });
      await f.revise("quota-shared", problem, sealing({ mode: "immediate", max: 2 }));
      await f.submit(f.rival, "quota-shared", GOOD_ASSIGNMENT);
      const allowance = (await call<Envelope>(f.as(f.rival), "get_problem", { problem: "quota-shared" }))
        .submission_allowance!;
      expect(allowance).toMatchObject({ used: 2, remaining: 0 });
      const old = await call<Envelope>(f.as(f.rival), "get_problem", {
        problem: "quota-shared",
        revision: 1,
      });
      expect(old.submission_allowance!.evaluation_id).toBe(allowance.evaluation_id);
    });

    it("accepts exactly one of 20 parallel create_submission calls at one remaining slot", async () => {
      f.setNow(T0);
      await f.sealedProblem("quota-race", sealing({ mode: "immediate", max: 1 }));
      const client = f.as(f.admin);
      const calls = [];
      for (let i = 0; i < 20; i += 1) {
        const attempt = await call<{ attempt: { id: string } }>(client, "start_attempt", {
          problem: "quota-race",
        });
        const artifact = await call<{ artifact: { id: string } }>(client, "upload_artifact", {
          attempt_id: attempt.attempt.id,
          filename: "a.txt",
          content_text: GOOD_ASSIGNMENT,
          media_type: "text/plain",
        });
        calls.push({
          attempt_id: attempt.attempt.id,
          artifacts: [{ role: "assignment", artifact_id: artifact.artifact.id }],
        });
      }
      const results = await Promise.all(calls.map((args) => client.callTool("create_submission", args)));
      const accepted = results.filter((r) => !r.isError);
      expect(accepted).toHaveLength(1);
      for (const refused of results.filter((r) => r.isError)) {
        expect(refused.content[0]!.text).toContain("submission_quota_exhausted");
      }
    }, 60_000);
  });

  describe("score release final_only", () => {
    let runId: string;
    let refutedRun: string;
    let problem: SeededProblem;
    beforeAll(async () => {
      f.setNow(T0);
      problem = await f.sealedProblem(
        "final-only",
        sealing({ mode: "final_only", releaseAt: at(30), closesAt: at(20), sealedUntil: at(60) }),
      );
      const good = await f.submit(f.solver, "final-only", GOOD_ASSIGNMENT);
      runId = good.verification_run_id;
      await f.execute(runId);
      const bad = await f.submit(f.solver, "final-only", BAD_ASSIGNMENT);
      refutedRun = bad.verification_run_id;
      await f.execute(refutedRun);
    });

    it("withholds results, scores and protected evidence from the submitter; the manager sees all", async () => {
      const mine = (
        await call<{ verification: Run }>(f.as(f.solver), "get_verification", {
          verification_run_id: refutedRun,
        })
      ).verification;
      expect(mine).toMatchObject({ result: null, score: null });
      expect(mine.stage_results[0]).toMatchObject({ stage_key: "check", result: null, log: null });
      expect(mine.stage_results[0]!.evidence_md).toMatch(/withheld/);
      expect(JSON.stringify(mine)).not.toContain(SEALED_CLAUSE);
      const managed = (
        await call<{ verification: Run }>(f.as(f.owner), "get_verification", {
          verification_run_id: refutedRun,
        })
      ).verification;
      expect(managed.result).toBe("refuted");
      expect(managed.stage_results[0]!.evidence_md).toContain(SEALED_CLAUSE);
      const logPath = `/verifications/${refutedRun}/stages/check/log`;
      const withheld = await f.http(logPath, f.solver);
      expect(withheld.status).toBe(403);
      expect(await withheld.json()).toMatchObject({ error: { code: "withheld", withheld_until: at(60) } });
      expect((await f.http(logPath, f.owner)).status).toBe(200);
      const page = await f.http(`/verifications/${refutedRun}`, f.solver, "text/html");
      const html = await page.text();
      expect(html).toContain('data-testid="result" class="result ">withheld<');
      expect(html).not.toContain(">refuted<");
      expect(html).not.toContain(SEALED_CLAUSE);
      const listed = await call<{ submissions: Array<{ latest_verification: { result: unknown } }> }>(
        f.as(f.solver),
        "list_submissions",
        { problem: "final-only" },
      );
      for (const submission of listed.submissions) expect(submission.latest_verification.result).toBeNull();
      const stored = await f.services.sql<
        { result: string }[]
      >`select result from verification_runs where id = ${refutedRun}`;
      expect(stored[0]!.result).toBe("refuted");
    });

    it("releases results at release_at without any write, protected evidence still withheld", async () => {
      f.setNow(at(30));
      const run = (
        await call<{ verification: Run }>(f.as(f.solver), "get_verification", {
          verification_run_id: runId,
        })
      ).verification;
      expect(run.result).toBe("verified");
      const refuted = (
        await call<{ verification: Run }>(f.as(f.solver), "get_verification", {
          verification_run_id: refutedRun,
        })
      ).verification;
      expect(refuted.result).toBe("refuted");
      expect(refuted.stage_results[0]!.result).toBe("refuted");
      expect(JSON.stringify(refuted)).not.toContain(SEALED_CLAUSE);
      f.setNow(at(60));
      const released = (
        await call<{ verification: Run }>(f.as(f.solver), "get_verification", {
          verification_run_id: refutedRun,
        })
      ).verification;
      expect(released.stage_results[0]!.evidence_md).toContain(SEALED_CLAUSE);
      f.setNow(T0);
    });

    it("releases results early with an early label release, and keeps the cutoff after unsealing", async () => {
      f.setNow(at(5));
      const plan = await call<{ acknowledgement_fingerprint: string; affected_revisions: unknown[] }>(
        f.as(f.owner),
        "prepare_reference_release",
        { revision_id: problem.revisionId },
      );
      await call(f.as(f.owner), "unseal_reference_inputs", {
        revision_id: problem.revisionId,
        reason_md: "Answers published early.",
        acknowledgement_fingerprint: plan.acknowledgement_fingerprint,
      });
      const run = (
        await call<{ verification: Run }>(f.as(f.solver), "get_verification", {
          verification_run_id: refutedRun,
        })
      ).verification;
      expect(run.result).toBe("refuted");
      expect(run.stage_results[0]!.evidence_md).toContain(SEALED_CLAUSE);
      f.setNow(at(21));
      const client = f.as(f.solver);
      const attempt = await call<{ attempt: { id: string } }>(client, "start_attempt", {
        problem: "final-only",
      });
      const artifact = await call<{ artifact: { id: string } }>(client, "upload_artifact", {
        attempt_id: attempt.attempt.id,
        filename: "late.txt",
        content_text: GOOD_ASSIGNMENT,
        media_type: "text/plain",
      });
      const refusal = await refuse(client, "create_submission", {
        attempt_id: attempt.attempt.id,
        artifacts: [{ role: "assignment", artifact_id: artifact.artifact.id }],
      });
      expect(refusal).toMatchObject({ code: "submissions_closed", submission_closes_at: at(20) });
      f.setNow(T0);
    });
  });

  describe("release", () => {
    it("refuses a missing or stale fingerprint and non-managers, then unseals every revision of the evaluation", async () => {
      f.setNow(T0);
      const problem = await f.sealedProblem("release-me", sealing({ mode: "immediate" }));
      const owner = f.as(f.owner);
      const first = await call<{
        evaluation_id: string;
        acknowledgement_fingerprint: string;
        affected_revisions: Array<{ problem_revision_id: string }>;
      }>(owner, "prepare_reference_release", { revision_id: problem.revisionId });
      expect(first.affected_revisions.map((r) => r.problem_revision_id)).toEqual([problem.revisionId]);
      expect(
        await refuse(f.as(f.solver), "prepare_reference_release", { revision_id: problem.revisionId }),
      ).toMatchObject({
        code: "forbidden",
      });
      const reason = "The benchmark closed; labels are public now.";
      expect(
        await refuse(owner, "unseal_reference_inputs", {
          revision_id: problem.revisionId,
          reason_md: reason,
        }),
      ).toMatchObject({ code: "stale_acknowledgement", reason: "missing" });
      // A second revision joins the evaluation: the first fingerprint no longer covers it.
      const second = await f.revise("release-me", problem, sealing({ mode: "immediate" }));
      expect(
        await refuse(owner, "unseal_reference_inputs", {
          revision_id: problem.revisionId,
          reason_md: reason,
          acknowledgement_fingerprint: first.acknowledgement_fingerprint,
        }),
      ).toMatchObject({ code: "stale_acknowledgement", reason: "stale" });
      const fresh = await call<typeof first>(owner, "prepare_reference_release", { revision_id: second });
      expect(fresh.evaluation_id).toBe(first.evaluation_id);
      expect(fresh.affected_revisions.map((r) => r.problem_revision_id).sort()).toEqual(
        [problem.revisionId, second].sort(),
      );
      expect(
        await refuse(f.as(f.solver), "unseal_reference_inputs", {
          revision_id: second,
          reason_md: reason,
          acknowledgement_fingerprint: fresh.acknowledgement_fingerprint,
        }),
      ).toMatchObject({ code: "forbidden" });
      f.setNow(at(1));
      const unsealed = await call<{ sealing: Record<string, unknown> }>(owner, "unseal_reference_inputs", {
        revision_id: second,
        reason_md: reason,
        acknowledgement_fingerprint: fresh.acknowledgement_fingerprint,
      });
      const event = { unsealed_at: at(1), user_id: f.owner.id, reason_md: reason };
      expect(unsealed.sealing).toMatchObject({ unsealed_at: at(1), release_event: event });
      // The cascade: revision 1 shows the same initiating manager and reason.
      const old = await call<Envelope>(f.as(f.solver), "get_problem", { problem: "release-me", revision: 1 });
      expect(old.revision.sealing).toMatchObject({ unsealed_at: at(1), release_event: event });
      const entry = old.reference_resources.find((r) => r.key === "instance")!;
      expect(entry).toMatchObject({ sealed: false, sealed_until: null });
      expect(entry.download_url).toMatch(/\/dl\//);
      const [content] = await f
        .as(f.solver)
        .readResource(`svc://problem-revisions/${problem.revisionId}/reference/instance`);
      expect(content!.text).toBe(sealedText("release-me"));
      expect(
        await refuse(owner, "unseal_reference_inputs", {
          revision_id: second,
          reason_md: reason,
          acknowledgement_fingerprint: fresh.acknowledgement_fingerprint,
        }),
      ).toMatchObject({ code: "already_unsealed" });
      f.setNow(T0);
    });

    it("releases at sealed_until with release_event null, and refuses an unseal after it", async () => {
      f.setNow(T0);
      const problem = await f.sealedProblem(
        "release-scheduled",
        sealing({ mode: "immediate", sealedUntil: at(3) }),
      );
      const plan = await call<{ acknowledgement_fingerprint: string }>(
        f.as(f.owner),
        "prepare_reference_release",
        {
          revision_id: problem.revisionId,
        },
      );
      f.setNow(at(3));
      const envelope = await call<Envelope>(f.as(f.solver), "get_problem", { problem: "release-scheduled" });
      expect(envelope.revision.sealing).toMatchObject({ unsealed_at: null, release_event: null });
      expect(envelope.reference_resources.find((r) => r.key === "instance")).toMatchObject({ sealed: false });
      expect(
        await refuse(f.as(f.owner), "unseal_reference_inputs", {
          revision_id: problem.revisionId,
          reason_md: "late",
          acknowledgement_fingerprint: plan.acknowledgement_fingerprint,
        }),
      ).toMatchObject({ code: "already_unsealed" });
      f.setNow(T0);
    });
  });

  describe("independent entries", () => {
    it("nominates, repeats as a no-op, replaces, pages events, and freezes at the cutoff", async () => {
      f.setNow(T0);
      const problem = await f.sealedProblem(
        "independent",
        sealing({ mode: "immediate", entries: "independent", closesAt: at(10) }),
      );
      const a = await f.submit(f.solver, "independent", GOOD_ASSIGNMENT);
      const b = await f.submit(f.solver, "independent", BAD_ASSIGNMENT);
      const theirs = await f.submit(f.rival, "independent", GOOD_ASSIGNMENT);
      const solver = f.as(f.solver);
      const first = await call<{ nomination: { id: string; submission_id: string }; changed: boolean }>(
        solver,
        "nominate_final_entry",
        { submission_id: a.submission_id },
      );
      expect(first).toMatchObject({ changed: true, nomination: { submission_id: a.submission_id } });
      const again = await call<typeof first>(solver, "nominate_final_entry", {
        submission_id: a.submission_id,
      });
      expect(again).toEqual({ ...first, changed: false });
      await call(solver, "nominate_final_entry", { submission_id: b.submission_id });
      expect(
        await refuse(solver, "nominate_final_entry", { submission_id: theirs.submission_id }),
      ).toMatchObject({
        code: "not_yours",
      });
      const page1 = await call<{
        history: Array<{ id: string; submission_id: string; user_id: string }>;
        history_next_cursor: string | null;
        nominations: Array<{ submission_id: string }>;
        nominations_next_cursor: string | null;
        latest_nomination: { submission_id: string };
        frozen: boolean;
        cutoff: string;
        selection_freezes_at: string;
      }>(solver, "get_final_entry", { revision_id: problem.revisionId, limit: 1 });
      expect(page1).toMatchObject({
        cutoff: at(10),
        selection_freezes_at: at(10),
        frozen: false,
        latest_nomination: { submission_id: b.submission_id },
      });
      expect(page1.history.map((e) => e.submission_id)).toEqual([a.submission_id]);
      const page2 = await call<typeof page1>(solver, "get_final_entry", {
        revision_id: problem.revisionId,
        limit: 1,
        history_cursor: page1.history_next_cursor,
        nominations_cursor: page1.nominations_next_cursor,
      });
      expect(page2.history.map((e) => e.submission_id)).toEqual([b.submission_id]);
      expect(page2.nominations.map((e) => e.submission_id)).toEqual([b.submission_id]);
      expect(page2.history_next_cursor).toBeNull();
      // Before the cutoff the rival sees only their own entry.
      const rivalView = await call<typeof page1>(f.as(f.rival), "get_final_entry", {
        revision_id: problem.revisionId,
      });
      expect(rivalView.history.map((e) => e.user_id)).toEqual([f.rival.id]);
      expect(rivalView.latest_nomination).toBeNull();
      f.setNow(at(10));
      expect(await refuse(solver, "nominate_final_entry", { submission_id: a.submission_id })).toMatchObject({
        code: "final_entry_frozen",
        selection_freezes_at: at(10),
      });
      const after = await call<typeof page1>(f.as(f.rival), "get_final_entry", {
        revision_id: problem.revisionId,
      });
      expect(after.frozen).toBe(true);
      expect(after.history).toHaveLength(3);
      expect(after.nominations.map((e) => e.submission_id)).toEqual([a.submission_id, b.submission_id]);
      f.setNow(T0);
    });

    it("refuses final entries on collaborative work", async () => {
      f.setNow(T0);
      const problem = await f.sealedProblem("collaborative", sealing({ mode: "immediate" }));
      expect(
        await refuse(f.as(f.solver), "get_final_entry", { revision_id: problem.revisionId }),
      ).toMatchObject({
        code: "final_entry_not_applicable",
      });
    });
  });
});
