import { setTimeout as sleep } from "node:timers/promises";
import { beforeAll, describe, expect, it } from "vitest";
import type { Services } from "../../src/core/services/services.ts";
import { startWorker } from "../../src/edges/worker/start-worker.ts";
import { COMPANION_RUNS } from "../../src/edges/worker/verify-run-task.ts";
import { settleEvents } from "../../src/events/settle-events.ts";
import type { Principal } from "../../src/users/principal.ts";
import { executeVerificationRuns, finishWithError } from "../../src/verification/execute-verification-run.ts";
import { newAuthor } from "../authoring/support/authoring-harness.ts";
import { describeWithDatabase, useTestDatabase } from "../support/test-database.ts";
import { testServices } from "../support/test-services.ts";
import {
  type PublishedProblem,
  passConformance,
  publishedSat,
  publishProblem,
  seedSubmission,
} from "./support/verification-harness.ts";

const SATISFYING = "v 1 2 -3 0\n";
const FALSIFYING = "v -1 2 -3 0\n";
/** A distinct satisfying answer (the instance has 3 variables; the checker ignores others). */
const satisfying = (i: number) => `v 1 2 -3 ${4 + i} 0\n`;

/**
 * A job executes queued runs of a builtin-only Contract with its own (executeVerificationRuns):
 * each run still executed once, by one execution, with its own verdict, stage and event.
 */
describeWithDatabase("runs executed together (companions)", () => {
  const db = useTestDatabase();
  let services: Services;
  let solver: Principal;
  let sat: PublishedProblem;

  beforeAll(async () => {
    services = testServices(db.sql);
    ({ solver, sat } = await publishedSat(services));
  });

  const submit = async (problem: PublishedProblem, answer: string) =>
    (
      await seedSubmission(services, solver, problem, [
        { role: "assignment", filename: "a.txt", media_type: "text/plain", content: answer },
      ])
    ).verification_run_id;
  const runs = (ids: string[]) =>
    db.sql<{ id: string; status: string; result: string | null }[]>`
      select id, status, result from verification_runs where id in ${db.sql(ids)}`;
  const jobsOf = (ids: string[]) =>
    db.sql<{ key: string; locked_at: Date | null }[]>`
      select key, locked_at from graphile_worker.jobs where key in ${db.sql(ids)}`;
  const eventsOf = async (ids: string[]) => {
    await settleEvents(db.sql);
    return await db.sql<{ run_id: string; count: number }[]>`
      select data->>'verification_run_id' as run_id, count(*)::int as count from events
      where kind = 'verification.run_finished' and data->>'verification_run_id' in ${db.sql(ids)}
      group by 1`;
  };

  it("takes the Contract's queued runs with their jobs, oldest first, and finishes each with its own verdict and one event", async () => {
    const lead = await submit(sat, SATISFYING);
    const answers = [SATISFYING, FALSIFYING, "not an assignment", FALSIFYING];
    const others: string[] = [];
    for (const answer of answers) others.push(await submit(sat, answer));

    const { lead: outcome, companions } = await executeVerificationRuns(services, lead, COMPANION_RUNS);
    expect(outcome).toEqual({ status: "fulfilled", value: { kind: "finished", result: "verified" } });
    expect(companions.map((companion) => companion.run_id)).toEqual(others);
    expect(companions.map((companion) => companion.outcome)).toEqual([
      { status: "fulfilled", value: { kind: "finished", result: "verified" } },
      { status: "fulfilled", value: { kind: "finished", result: "refuted" } },
      { status: "fulfilled", value: { kind: "finished", result: "inconclusive" } },
      { status: "fulfilled", value: { kind: "finished", result: "refuted" } },
    ]);

    const byId = new Map((await runs([lead, ...others])).map((run) => [run.id, run]));
    expect(byId.get(lead)).toMatchObject({ status: "finished", result: "verified" });
    expect(others.map((id) => byId.get(id)!.result)).toEqual([
      "verified",
      "refuted",
      "inconclusive",
      "refuted",
    ]);
    const stages = await db.sql<{ verification_run_id: string; status: string; result: string }[]>`
      select verification_run_id, status, result from verification_stage_results
      where verification_run_id in ${db.sql(others)} order by verification_run_id`;
    expect(stages).toHaveLength(others.length);
    for (const stage of stages) {
      expect(stage).toMatchObject({
        status: "finished",
        result: byId.get(stage.verification_run_id)!.result,
      });
    }
    // The companions' jobs are gone (nobody else will execute them); the lead's is its caller's.
    expect((await jobsOf([lead, ...others])).map((job) => job.key)).toEqual([lead]);
    await db.sql`select graphile_worker.complete_jobs(array(select id from graphile_worker.jobs where key = ${lead}))`;
    const events = await eventsOf([lead, ...others]);
    expect(events).toHaveLength(5);
    for (const event of events) expect(event.count).toBe(1);
  });

  it(`takes at most ${COMPANION_RUNS} companions, never a run whose job a worker holds, nor a finished one`, async () => {
    const lead = await submit(sat, SATISFYING);
    const held = await submit(sat, SATISFYING);
    const queued: string[] = [];
    for (let i = 0; i < COMPANION_RUNS + 2; i++) queued.push(await submit(sat, satisfying(i)));
    await db.sql`
      update graphile_worker._private_jobs set locked_at = now(), locked_by = 'another-worker'
      where key = ${held}`;

    const { companions } = await executeVerificationRuns(services, lead, COMPANION_RUNS);
    expect(companions.map((companion) => companion.run_id)).toEqual(queued.slice(0, COMPANION_RUNS));
    const byId = new Map((await runs([held, ...queued])).map((run) => [run.id, run]));
    expect(byId.get(held)!.status).toBe("queued");
    for (const id of queued.slice(COMPANION_RUNS)) expect(byId.get(id)!.status).toBe("queued");
    const jobs = await jobsOf([held, ...queued]);
    expect(jobs.map((job) => job.key).sort()).toEqual([held, ...queued.slice(COMPANION_RUNS)].sort());

    // The rest are executed by their own jobs; an execution of a finished run does nothing.
    await db.sql`update graphile_worker._private_jobs set locked_at = null, locked_by = null where key = ${held}`;
    const rest = await executeVerificationRuns(services, held, COMPANION_RUNS);
    expect(rest.companions.map((companion) => companion.run_id)).toEqual(queued.slice(COMPANION_RUNS));
    const again = await executeVerificationRuns(services, queued[0]!, COMPANION_RUNS);
    expect(again).toEqual({ lead: { status: "fulfilled", value: { kind: "skipped" } }, companions: [] });
    await db.sql`select graphile_worker.complete_jobs(array(select id from graphile_worker.jobs where key in ${db.sql([lead, held])}))`;
  });

  it("takes no companion when the Contract has a stage that is not a builtin", async () => {
    const author = await newAuthor(db.sql);
    const script = await publishProblem(services, author, "valid-script");
    await passConformance(db.sql, script.verifier_contract_id);
    const first = await submit(script, "42\n");
    const second = await submit(script, "42\n");
    const { companions } = await executeVerificationRuns(services, first, COMPANION_RUNS);
    expect(companions).toEqual([]);
    expect((await runs([second]))[0]!.status).toBe("queued");
    expect((await jobsOf([second])).map((job) => job.key)).toEqual([second]);
    await db.sql`
      update verification_runs set status = 'finished', result = 'inconclusive', finished_at = now(),
        started_at = coalesce(started_at, now())
      where id in ${db.sql([first, second])} and status <> 'finished'`;
    await db.sql`select graphile_worker.complete_jobs(array(select id from graphile_worker.jobs where key in ${db.sql([first, second])}))`;
  });

  describe("under a worker", () => {
    const waitFinished = async (ids: string[]) => {
      for (let waited = 0; waited < 30_000; waited += 100) {
        if ((await runs(ids)).every((run) => run.status === "finished")) return;
        await sleep(100);
      }
    };

    it("executes every run once, with its own verdict and event, and leaves no job", async () => {
      const ids: string[] = [];
      for (let i = 0; i < 40; i++) ids.push(await submit(sat, i % 3 === 0 ? FALSIFYING : satisfying(i)));
      const worker = await startWorker(services, { concurrency: 2, pollInterval: 50 });
      try {
        await waitFinished(ids);
      } finally {
        await worker.stop();
      }
      const byId = new Map((await runs(ids)).map((run) => [run.id, run]));
      ids.forEach((id, i) => {
        expect(byId.get(id)).toMatchObject({
          status: "finished",
          result: i % 3 === 0 ? "refuted" : "verified",
        });
      });
      const events = await eventsOf(ids);
      expect(events).toHaveLength(ids.length);
      for (const event of events) expect(event.count).toBe(1);
      expect(await jobsOf(ids)).toEqual([]);
    });

    it("enqueues a companion that failed again: its own job's attempts finish it `error`, its lead is unharmed", async () => {
      const lead = await submit(sat, satisfying(1000));
      // The companion's answer is missing from the blob store: the service's fault, so `error` in the end.
      const broken = await submit(sat, satisfying(1001));
      const [artifact] = await db.sql<{ content_hash: string }[]>`
        select a.content_hash from artifacts a join submissions s on s.attempt_id = a.attempt_id
        join verification_runs r on r.submission_id = s.id where r.id = ${broken}`;
      expect(await services.blobs.delete(artifact!.content_hash)).toBe(true);

      const direct = await executeVerificationRuns(services, lead, COMPANION_RUNS);
      expect(direct.lead).toEqual({ status: "fulfilled", value: { kind: "finished", result: "verified" } });
      expect(direct.companions).toHaveLength(1);
      expect(direct.companions[0]).toMatchObject({ run_id: broken, outcome: { status: "rejected" } });
      expect(String((direct.companions[0]!.outcome as PromiseRejectedResult).reason)).toContain(
        "missing from the blob store",
      );
      // Claimed and its job gone: settling it is the caller's (the task's) part, below.
      expect((await runs([broken]))[0]!.status).toBe("running");
      expect(await jobsOf([broken])).toEqual([]);
      await finishWithError(services, broken, "settled by the test");
      await db.sql`select graphile_worker.complete_jobs(array(select id from graphile_worker.jobs where key = ${lead}))`;

      // Under a worker: one job for the next pair, whose companion fails the same way.
      const second = await submit(sat, satisfying(1002));
      const secondBroken = await submit(sat, satisfying(1001));
      expect(await services.blobs.delete(artifact!.content_hash)).toBe(true);
      const worker = await startWorker(services, { concurrency: 1, pollInterval: 50 });
      try {
        await waitFinished([second, secondBroken]);
      } finally {
        await worker.stop();
      }
      const byId = new Map((await runs([lead, broken, second, secondBroken])).map((run) => [run.id, run]));
      expect(byId.get(lead)).toMatchObject({ status: "finished", result: "verified" });
      expect(byId.get(second)).toMatchObject({ status: "finished", result: "verified" });
      for (const id of [broken, secondBroken])
        expect(byId.get(id)).toMatchObject({ status: "finished", result: "error" });
      expect(await jobsOf([lead, broken, second, secondBroken])).toEqual([]);
    }, 60_000);
  });
});
