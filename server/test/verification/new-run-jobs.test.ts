import type { Runner } from "graphile-worker";
import postgres from "postgres";
import { afterAll, beforeAll, expect, it } from "vitest";
import { uploadArtifact } from "../../src/artifacts/upload-artifact.ts";
import { enqueueRun } from "../../src/core/jobs/enqueue-run.ts";
import { wakeWorkers } from "../../src/core/jobs/wake-workers.ts";
import { JOBS_QUEUED } from "../../src/core/jobs/worker-wakeups.ts";
import type { Services } from "../../src/core/services/services.ts";
import type { ToolContext } from "../../src/edges/mcp/tools/tool.ts";
import { startWorker } from "../../src/edges/worker/start-worker.ts";
import { startAttempt } from "../../src/solving/start-attempt.ts";
import { createSubmission } from "../../src/submissions/create-submission.ts";
import { newAuthor, newUser } from "../authoring/support/authoring-harness.ts";
import { describeWithDatabase, useTestDatabase } from "../support/test-database.ts";
import { testServices } from "../support/test-services.ts";
import { type PublishedProblem, passConformance, publishProblem } from "./support/verification-harness.ts";

/**
 * A Submission's run job is written straight into graphile-worker's job table (newRunJobs) and
 * the workers are woken after the commit, one NOTIFY for many Submissions (wakeWorkers). These
 * tests fail when a graphile-worker upgrade changes what add_job writes, or when a Submission no
 * longer reaches an idle worker without its poll.
 */
describeWithDatabase("a Submission's run job, written without add_job", () => {
  const db = useTestDatabase();
  let services: Services;
  let solver: ToolContext;
  let sat: PublishedProblem;
  let runner: Runner | undefined;

  beforeAll(async () => {
    services = testServices(db.sql);
    const author = await newAuthor(db.sql);
    solver = { services, principal: await newUser(db.sql), baseUrl: "http://x" };
    sat = await publishProblem(services, author, "valid-builtin-sat");
    await passConformance(db.sql, sat.verifier_contract_id);
    // Published problems start as drafts for everyone but their author: let the solver start Attempts.
    await db.sql`update problems set visibility = 'unlisted' where id = ${sat.problem_id}`;
  });
  afterAll(async () => {
    await runner?.stop();
  });

  const submit = async (answer = "v 1 2 -3 0\n") => {
    const { attempt } = await startAttempt(services, solver, { problem: sat.problem_id });
    const { artifact } = await uploadArtifact(services, solver, {
      attempt_id: attempt.id,
      filename: "a.txt",
      content_text: answer,
    });
    const created = await createSubmission(services, solver, {
      attempt_id: attempt.id,
      artifacts: [{ role: "assignment", artifact_id: artifact.id }],
    });
    return created.verification_run_id!;
  };
  const job = async (key: string) => {
    // Every column of the private table, so a column an upgrade adds is compared too.
    const [row] = await db.sql<{ columns: Record<string, unknown>; task: string; due: boolean }[]>`
      select to_jsonb(j) - 'id' - 'created_at' - 'updated_at' - 'run_at' as columns, t.identifier as task,
        j.run_at <= now() as due
      from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
      where j.key = ${key}`;
    return row;
  };

  it("is the job add_job writes for a run: task, payload, attempts, key, queue, priority, run at once", async () => {
    const runId = await submit();
    // add_job, through enqueueRun, for a run id of the same shape that has no job yet.
    const other = "vrn_addjobcomparison0000000";
    await enqueueRun(db.sql, other);
    const written = await job(runId);
    const added = await job(other);
    expect(written).toEqual({
      ...added,
      columns: { ...added!.columns, key: runId, payload: { verification_run_id: runId } },
    });
    expect(written).toMatchObject({
      task: "verify_run",
      due: true,
      columns: { max_attempts: 3, attempts: 0, job_queue_id: null, locked_at: null, is_available: true },
    });
    await db.sql`select graphile_worker.remove_job(${other})`;
  });

  it("tells the workers after the commit: the job is there when they hear of it", async () => {
    const listener = postgres(db.url, { max: 2, onnotice: () => {} });
    try {
      const jobs = () =>
        listener<{ jobs: number }[]>`
          select count(*)::int as jobs from graphile_worker.jobs where task_identifier = 'verify_run'`;
      const [before] = await jobs();
      const heard = Promise.withResolvers<{ count: number; jobs: number }>();
      await listener.listen(JOBS_QUEUED, (payload) => {
        const notice = JSON.parse(payload) as { count: number };
        // What a worker woken now would find: the committed run's job.
        jobs().then(([row]) => heard.resolve({ count: notice.count, jobs: row!.jobs }), heard.reject);
      });
      const runId = await submit();
      expect(await heard.promise).toEqual({ count: 1, jobs: before!.jobs + 1 });
      expect((await job(runId))?.task).toBe("verify_run");
    } finally {
      await listener.end({ timeout: 5 });
    }
  });

  it("is executed by a worker like any job", async () => {
    runner = await startWorker(services, { concurrency: 1, pollInterval: 100 });
    const runId = await submit("v 1 2 -3 4 0\n");
    const until = Date.now() + 30_000;
    for (;;) {
      const [run] = await db.sql<{ status: string; result: string | null }[]>`
        select status, result from verification_runs where id = ${runId}`;
      if (run!.status === "finished") {
        expect(run!.result).toBe("verified");
        break;
      }
      if (Date.now() > until) throw new Error(`run ${runId} still ${run!.status} after 30 s`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(await job(runId)).toBeUndefined();
  });

  it("wakes the workers with one NOTIFY at once, then one for all the wake-ups asked for within the interval", async () => {
    const heard: number[] = [];
    const listener = postgres(db.url, { max: 1, onnotice: () => {} });
    try {
      const all = Promise.withResolvers<void>();
      await listener.listen(JOBS_QUEUED, (payload) => {
        const notice = JSON.parse(payload) as { count: number };
        heard.push(notice.count);
        if (heard.reduce((a, b) => a + b, 0) >= 50) all.resolve();
      });
      // The first goes out at once; the 49 asked for right after it go out together, WAKE_INTERVAL_MS later.
      for (let i = 0; i < 50; i++) wakeWorkers(db.sql, 1);
      await all.promise;
      expect(heard).toEqual([1, 49]);
    } finally {
      await listener.end({ timeout: 5 });
    }
  });
});
