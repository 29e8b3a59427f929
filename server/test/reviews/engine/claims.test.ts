import { beforeAll, expect, it } from "vitest";
import { advanceReviewProcess } from "../../../src/reviews/advance-review-process.ts";
import { claimReview } from "../../../src/reviews/claim-review.ts";
import { declineReviewAssignment } from "../../../src/reviews/decline-review-assignment.ts";
import { readAssignmentRows, readNodeRows, readProcessRow } from "../../../src/reviews/read-process-rows.ts";
import { submitReviewResponse } from "../../../src/reviews/submit-review-response.ts";
import { describeWithDatabase, useTestDatabase } from "../../support/test-database.ts";
import { humanNode, kOfN, protocol } from "./support/protocols.ts";
import {
  type ReviewWorld,
  reviewers,
  reviewWorld,
  seedOrganization,
  startOn,
  verdict,
} from "./support/review-harness.ts";

const twoReaders = protocol(
  [humanNode("readers", { count: 2 }), kOfN("decision", "readers", 2, 1)],
  "decision",
);
const oneReader = protocol(
  [humanNode("readers", { count: 1 }), kOfN("decision", "readers", 1, 1)],
  "decision",
);

describeWithDatabase("claims and submissions", () => {
  const db = useTestDatabase();
  let world: ReviewWorld;

  beforeAll(async () => {
    world = await reviewWorld(db.sql);
  });

  async function opened(document = twoReaders, overrides = {}) {
    const process = await startOn(world, document, overrides);
    await advanceReviewProcess(world.services, process.id);
    return process;
  }

  it("accepts after two reviewers claim and accept: the node completes and the process finishes accept", async () => {
    const process = await opened();
    const [alice, bob] = await reviewers(db.sql, 2);
    // 1. Two claims, each held for claim_hold_minutes.
    const a = await claimReview(world.services, alice!.user.id, {
      review_process_id: process.id,
      node_id: "readers",
    });
    const b = await claimReview(world.services, bob!.user.id, {
      review_process_id: process.id,
      node_id: "readers",
    });
    expect(a.hold_until).toEqual(new Date(world.clock().getTime() + 120 * 60_000));
    // 2. The first judgment leaves the process open.
    await submitReviewResponse(world.services, alice!.user.id, { assignment_id: a.id, ...verdict("accept") });
    expect((await readProcessRow(db.sql, process.id))!.status).toBe("open");
    // 3. The second completes the node, the reducer runs, the process finishes.
    await submitReviewResponse(world.services, bob!.user.id, { assignment_id: b.id, ...verdict("accept") });
    const finished = await readProcessRow(db.sql, process.id);
    expect(finished).toMatchObject({ status: "finished", end_reason: "completed", outcome: "accept" });
    const decision = (await readNodeRows(db.sql, process.id)).find((n) => n.node_id === "decision")!;
    expect(decision).toMatchObject({ status: "completed", outcome: "accept" });
    expect(decision.reduction!.steps.length).toBeGreaterThan(0);
  });

  it("rejects when one of two reviewers rejects (reject.k = 1)", async () => {
    const process = await opened();
    const [alice, bob] = await reviewers(db.sql, 2);
    const a = await claimReview(world.services, alice!.user.id, {
      review_process_id: process.id,
      node_id: "readers",
    });
    const b = await claimReview(world.services, bob!.user.id, {
      review_process_id: process.id,
      node_id: "readers",
    });
    await submitReviewResponse(world.services, alice!.user.id, { assignment_id: a.id, ...verdict("accept") });
    await submitReviewResponse(world.services, bob!.user.id, { assignment_id: b.id, ...verdict("reject") });
    expect(await readProcessRow(db.sql, process.id)).toMatchObject({ status: "finished", outcome: "reject" });
  });

  it("refuses a response that breaks the rubric, naming every problem, and keeps the claim open", async () => {
    const process = await opened(oneReader);
    const [alice] = await reviewers(db.sql, 1);
    const a = await claimReview(world.services, alice!.user.id, {
      review_process_id: process.id,
      node_id: "readers",
    });
    const refusal = await submitReviewResponse(world.services, alice!.user.id, {
      assignment_id: a.id,
      response: { verdict: "maybe" },
      rationale_md: "",
      citations: [],
    }).catch((error) => error);
    expect(refusal.code).toBe("response_rejected");
    expect(refusal.details.problems.map((p: { path: string }) => p.path).sort()).toEqual([
      "/rationale_md",
      "/response/verdict",
    ]);
    expect(refusal.message).toContain("/rationale_md");
    expect((await readAssignmentRows(db.sql, process.id))[0]).toMatchObject({ status: "claimed" });
    await submitReviewResponse(world.services, alice!.user.id, { assignment_id: a.id, ...verdict("accept") });
    expect(await readProcessRow(db.sql, process.id)).toMatchObject({ outcome: "accept" });
  });

  it("refuses the submitter on their own work, whatever the protocol says", async () => {
    const process = await opened(
      protocol(
        [
          humanNode("readers", {
            conflicts: { exclude_submitter: false, exclude_submitter_organization: false },
          }),
          kOfN("decision", "readers", 2, 1),
        ],
        "decision",
      ),
    );
    await expect(
      claimReview(world.services, world.submitter.user.id, {
        review_process_id: process.id,
        node_id: "readers",
      }),
    ).rejects.toMatchObject({ code: "conflict_of_interest" });
  });

  it("refuses members of the submitter's organization when the node excludes it, and admits others", async () => {
    const [colleague, outsider] = await reviewers(db.sql, 2);
    const org = await seedOrganization(db.sql, [
      { userId: world.submitter.user.id },
      { userId: colleague!.user.id },
    ]);
    const excluding = protocol(
      [
        humanNode("readers", {
          conflicts: { exclude_submitter: true, exclude_submitter_organization: true },
        }),
        kOfN("decision", "readers", 2, 1),
      ],
      "decision",
    );
    const process = await opened(excluding, { subject_organization_id: org });
    const seat = { review_process_id: process.id, node_id: "readers" };
    await expect(claimReview(world.services, colleague!.user.id, seat)).rejects.toMatchObject({
      code: "conflict_of_interest",
    });
    await expect(claimReview(world.services, outsider!.user.id, seat)).resolves.toMatchObject({
      status: "claimed",
    });
    // Without the exclusion the colleague may review.
    const open = await opened(twoReaders, { subject_organization_id: org });
    await expect(
      claimReview(world.services, colleague!.user.id, { review_process_id: open.id, node_id: "readers" }),
    ).resolves.toMatchObject({ status: "claimed" });
  });

  it("applies eligibility rules: named users, organization members, campaign reviewers", async () => {
    const [named, member, stranger, campaignMember] = await reviewers(db.sql, 4);
    const org = await seedOrganization(db.sql, [{ userId: member!.user.id }]);
    const rules = [
      { rule: "named_users" as const, organization_id: null, user_ids: [named!.user.id] },
      { rule: "organization_members" as const, organization_id: org, user_ids: null },
    ];
    for (const [eligibility, admitted] of [
      [rules[0]!, named!],
      [rules[1]!, member!],
    ] as const) {
      const process = await opened(
        protocol([humanNode("readers", { eligibility }), kOfN("decision", "readers", 2, 1)], "decision"),
      );
      const seat = { review_process_id: process.id, node_id: "readers" };
      await expect(claimReview(world.services, stranger!.user.id, seat)).rejects.toMatchObject({
        code: "not_eligible",
      });
      await expect(claimReview(world.services, admitted.user.id, seat)).resolves.toMatchObject({
        status: "claimed",
      });
    }
    // campaign_reviewers: the Campaign's owner and members of Organizations the owner owns.
    await seedOrganization(db.sql, [
      { userId: world.author.user.id, role: "owner" },
      { userId: campaignMember!.user.id },
    ]);
    const campaignId = `cmp_${Math.random().toString(36).slice(2, 14).padEnd(12, "0")}`;
    await db.sql`
      insert into campaigns (id, slug, owner_user_id, title, summary)
      values (${campaignId}, ${`c-${campaignId.slice(4)}`}, ${world.author.user.id}, 'C', 'S')`;
    const campaignRule = { rule: "campaign_reviewers" as const, organization_id: null, user_ids: null };
    const process = await opened(
      protocol(
        [humanNode("readers", { eligibility: campaignRule }), kOfN("decision", "readers", 2, 1)],
        "decision",
      ),
      { campaign_id: campaignId },
    );
    const seat = { review_process_id: process.id, node_id: "readers" };
    await expect(claimReview(world.services, stranger!.user.id, seat)).rejects.toMatchObject({
      code: "not_eligible",
    });
    await expect(claimReview(world.services, campaignMember!.user.id, seat)).resolves.toMatchObject({
      status: "claimed",
    });
    await expect(claimReview(world.services, world.author.user.id, seat)).resolves.toMatchObject({
      status: "claimed",
    });
  });

  it("gives one live seat per reviewer: a re-claim renews the hold of the same assignment", async () => {
    const process = await opened();
    const [alice] = await reviewers(db.sql, 1);
    const seat = { review_process_id: process.id, node_id: "readers" };
    const first = await claimReview(world.services, alice!.user.id, seat);
    world.clock.advanceMinutes(30);
    const again = await claimReview(world.services, alice!.user.id, seat);
    expect(again.id).toBe(first.id);
    expect(again.hold_until!.getTime() - first.hold_until!.getTime()).toBe(30 * 60_000);
    await submitReviewResponse(world.services, alice!.user.id, {
      assignment_id: first.id,
      ...verdict("accept"),
    });
    await expect(claimReview(world.services, alice!.user.id, seat)).rejects.toMatchObject({
      code: "seat_unavailable",
    });
  });

  it("reopens a seat when its hold lapses (clock moved), and refuses the lapsed holder's submission", async () => {
    const process = await opened(oneReader);
    const [alice, bob] = await reviewers(db.sql, 2);
    const seat = { review_process_id: process.id, node_id: "readers" };
    const held = await claimReview(world.services, alice!.user.id, seat);
    await expect(claimReview(world.services, bob!.user.id, seat)).rejects.toMatchObject({
      code: "seat_unavailable",
    });
    world.clock.advanceMinutes(121);
    const taken = await claimReview(world.services, bob!.user.id, seat);
    expect(taken.status).toBe("claimed");
    const rows = await readAssignmentRows(db.sql, process.id);
    expect(rows.find((row) => row.id === held.id)).toMatchObject({
      status: "lapsed",
      ended_at: held.hold_until,
    });
    await expect(
      submitReviewResponse(world.services, alice!.user.id, { assignment_id: held.id, ...verdict("accept") }),
    ).rejects.toMatchObject({ code: "hold_lapsed" });
  });

  it("records a lapse when the timer advances the process, without any claim", async () => {
    const process = await opened(oneReader);
    const [alice] = await reviewers(db.sql, 1);
    const held = await claimReview(world.services, alice!.user.id, {
      review_process_id: process.id,
      node_id: "readers",
    });
    world.clock.advanceMinutes(125);
    await advanceReviewProcess(world.services, process.id);
    expect((await readAssignmentRows(db.sql, process.id))[0]).toMatchObject({
      id: held.id,
      status: "lapsed",
    });
  });

  it("reopens a declined seat at once, and refuses acting on an ended assignment", async () => {
    const process = await opened(oneReader);
    const [alice, bob] = await reviewers(db.sql, 2);
    const seat = { review_process_id: process.id, node_id: "readers" };
    const held = await claimReview(world.services, alice!.user.id, seat);
    await expect(declineReviewAssignment(world.services, bob!.user.id, held.id)).rejects.toMatchObject({
      code: "not_found",
    });
    expect(await declineReviewAssignment(world.services, alice!.user.id, held.id)).toMatchObject({
      status: "declined",
    });
    await expect(declineReviewAssignment(world.services, alice!.user.id, held.id)).rejects.toMatchObject({
      code: "assignment_ended",
    });
    await expect(claimReview(world.services, bob!.user.id, seat)).resolves.toMatchObject({
      status: "claimed",
    });
  });

  it("ends the process reviewers_unavailable at the deadline with a seat open, and refuses claims after", async () => {
    const process = await opened();
    const [alice, bob] = await reviewers(db.sql, 2);
    const seat = { review_process_id: process.id, node_id: "readers" };
    const a = await claimReview(world.services, alice!.user.id, seat);
    await submitReviewResponse(world.services, alice!.user.id, { assignment_id: a.id, ...verdict("accept") });
    world.clock.advanceMinutes(72 * 60);
    // Before any timer ran, the node already reads as past its deadline.
    await expect(claimReview(world.services, bob!.user.id, seat)).rejects.toMatchObject({
      code: "node_not_open",
    });
    await advanceReviewProcess(world.services, process.id);
    expect(await readProcessRow(db.sql, process.id)).toMatchObject({
      status: "finished",
      end_reason: "reviewers_unavailable",
      outcome: null,
    });
    const decision = (await readNodeRows(db.sql, process.id)).find((n) => n.node_id === "decision")!;
    expect(decision.status).toBe("skipped");
    await expect(claimReview(world.services, bob!.user.id, seat)).rejects.toMatchObject({
      code: "process_finished",
    });
  });

  it("gives the last seat to exactly one of twenty concurrent claims", async () => {
    const process = await opened();
    const [first, ...rest] = await reviewers(db.sql, 21);
    const seat = { review_process_id: process.id, node_id: "readers" };
    await claimReview(world.services, first!.user.id, seat);
    const results = await Promise.allSettled(
      rest.map((user) => claimReview(world.services, user.user.id, seat)),
    );
    const won = results.filter((result) => result.status === "fulfilled");
    const lost = results.filter((result) => result.status === "rejected") as PromiseRejectedResult[];
    expect(won).toHaveLength(1);
    expect(lost.map((result) => result.reason.code)).toEqual(Array(19).fill("seat_unavailable"));
    const live = (await readAssignmentRows(db.sql, process.id)).filter((row) => row.status === "claimed");
    expect(live).toHaveLength(2);
  });

  it("refuses claims on a node that is not open, and on unknown processes and nodes", async () => {
    const process = await opened();
    const [alice] = await reviewers(db.sql, 1);
    await expect(
      claimReview(world.services, alice!.user.id, { review_process_id: process.id, node_id: "decision" }),
    ).rejects.toMatchObject({ code: "not_eligible" });
    await expect(
      claimReview(world.services, alice!.user.id, { review_process_id: process.id, node_id: "nope" }),
    ).rejects.toMatchObject({ code: "not_found" });
    await expect(
      claimReview(world.services, alice!.user.id, {
        review_process_id: "rpr_0000000000",
        node_id: "readers",
      }),
    ).rejects.toMatchObject({ code: "not_found" });
    const pending = await startOn(world, twoReaders);
    await expect(
      claimReview(world.services, alice!.user.id, { review_process_id: pending.id, node_id: "readers" }),
    ).rejects.toMatchObject({ code: "node_not_open" });
  });
});
