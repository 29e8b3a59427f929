import { pino } from "pino";
import { afterAll, expect, it } from "vitest";
import { RUN_JOB_FLAG, TaskName } from "../../../src/core/jobs/task-name.ts";
import { wakeWorkers } from "../../../src/core/jobs/wake-workers.ts";
import {
  JOIN_AFTER_MS,
  startWorkerWakeups,
  type WorkerWakeups,
} from "../../../src/core/jobs/worker-wakeups.ts";
import { describeWithDatabase, useTestDatabase } from "../../support/test-database.ts";

const log = pino({ level: "silent" });

/** Which worker process takes runs: the first always, the others only once runs wait long. */
describeWithDatabase("worker wake-ups", () => {
  const db = useTestDatabase();
  const started: WorkerWakeups[] = [];
  afterAll(async () => {
    for (const wakeups of started) await wakeups.stop();
  });
  const start = async (nudged: number[]) => {
    const wakeups = await startWorkerWakeups(db.sql, (count) => nudged.push(count), log);
    started.push(wakeups);
    return wakeups;
  };
  const until = async (condition: () => boolean, what: string) => {
    const end = Date.now() + 10_000;
    while (!condition()) {
      if (Date.now() > end) throw new Error(`still not ${what} after 10 s`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  it("wakes the first process only; the others take runs once one has waited over JOIN_AFTER_MS; another becomes first when it stops and is woken then", async () => {
    const firstNudges: number[] = [];
    const otherNudges: number[] = [];
    const first = await start(firstNudges);
    const other = await start(otherNudges);
    expect([first.first, other.first]).toEqual([true, false]);
    expect(first.forbiddenFlags()).toBeNull();
    expect(await other.forbiddenFlags()).toEqual([RUN_JOB_FLAG]);

    wakeWorkers(db.sql, 3);
    await until(() => firstNudges.length > 0, "woken");
    expect(firstNudges).toEqual([3]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(otherNudges).toEqual([]);

    // A run's job that has waited longer than the first takes: the other takes runs at its poll.
    await db.sql`
      insert into graphile_worker._private_jobs (task_id, payload, max_attempts, key, flags, run_at)
      select id, '{"verification_run_id": "vrn_waitedlong000000000000"}', 3, 'vrn_waitedlong000000000000',
        jsonb_build_object(${RUN_JOB_FLAG}::text, true), now() - make_interval(secs => ${(2 * JOIN_AFTER_MS) / 1000})
      from graphile_worker._private_tasks where identifier = ${TaskName.verifyRun}`;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await other.forbiddenFlags()).toBeNull();
    expect(otherNudges).toEqual([]);
    await db.sql`delete from graphile_worker._private_jobs where key = 'vrn_waitedlong000000000000'`;

    await first.stop();
    await until(() => other.first, "first");
    expect(other.forbiddenFlags()).toBeNull();
    wakeWorkers(db.sql, 2);
    await until(() => otherNudges.length > 0, "woken");
    expect(otherNudges).toEqual([2]);
  }, 30_000);
});
