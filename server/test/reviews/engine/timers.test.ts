import { beforeAll, expect, it } from "vitest";
import { TaskName } from "../../../src/core/jobs/task-name.ts";
import { advanceReviewProcess } from "../../../src/reviews/advance-review-process.ts";
import { claimReview } from "../../../src/reviews/claim-review.ts";
import { readAssignmentRows, readNodeRows, readProcessRow } from "../../../src/reviews/read-process-rows.ts";
import { sweepReviewProcesses } from "../../../src/reviews/sweep-review-processes.ts";
import { describeWithDatabase, useTestDatabase } from "../../support/test-database.ts";
import { humanNode, kOfN, protocol } from "./support/protocols.ts";
import { type ReviewWorld, reviewers, reviewWorld, startOn } from "./support/review-harness.ts";

const oneReader = protocol(
  [humanNode("readers", { count: 1 }), kOfN("decision", "readers", 1, 1)],
  "decision",
);

describeWithDatabase("review timers", () => {
  const db = useTestDatabase();
  let world: ReviewWorld;

  beforeAll(async () => {
    world = await reviewWorld(db.sql);
  });

  const job = async (key: string) => {
    const [row] = await db.sql<{ task_identifier: string; run_at: Date }[]>`
      select task_identifier, run_at from graphile_worker.jobs where key = ${key}`;
    return row;
  };

  it("schedules a job at each node deadline and each hold, and moves the hold's job on renewal", async () => {
    const process = await startOn(world, oneReader);
    await advanceReviewProcess(world.services, process.id);
    const [node] = (await readNodeRows(db.sql, process.id)).filter((n) => n.node_id === "readers");
    expect(await job(`review_deadline:${process.id}:readers`)).toEqual({
      task_identifier: TaskName.advanceReviewProcess,
      run_at: node!.deadline_at,
    });
    const [alice] = await reviewers(db.sql, 1);
    const seat = { review_process_id: process.id, node_id: "readers" };
    const held = await claimReview(world.services, alice!.user.id, seat);
    expect((await job(`review_hold:${held.id}`))?.run_at).toEqual(held.hold_until);
    world.clock.advanceMinutes(10);
    const renewed = await claimReview(world.services, alice!.user.id, seat);
    expect((await job(`review_hold:${held.id}`))?.run_at).toEqual(renewed.hold_until);
  });

  it("sweeps processes whose holds or deadlines passed, in case a timer was lost", async () => {
    const process = await startOn(world, oneReader);
    await advanceReviewProcess(world.services, process.id);
    const [alice] = await reviewers(db.sql, 1);
    await claimReview(world.services, alice!.user.id, { review_process_id: process.id, node_id: "readers" });
    await db.sql`select graphile_worker.remove_job(key) from graphile_worker.jobs where key like 'review_%'`;
    expect(await sweepReviewProcesses(world.services)).not.toContain(process.id);
    world.clock.advanceMinutes(180);
    expect(await sweepReviewProcesses(world.services)).toContain(process.id);
    expect((await readAssignmentRows(db.sql, process.id))[0]).toMatchObject({ status: "lapsed" });
    world.clock.advanceMinutes(72 * 60);
    expect(await sweepReviewProcesses(world.services)).toContain(process.id);
    expect(await readProcessRow(db.sql, process.id)).toMatchObject({ end_reason: "reviewers_unavailable" });
  });
});
