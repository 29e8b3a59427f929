import { beforeAll, expect, it } from "vitest";
import { readArtifact } from "../../../src/artifacts/read-artifact.ts";
import { advanceReviewProcess } from "../../../src/reviews/advance-review-process.ts";
import { INLINE_TEXT_BYTES, PREVIEW_CHARS } from "../../../src/reviews/bundle-material.ts";
import { claimReview } from "../../../src/reviews/claim-review.ts";
import { declineReviewAssignment } from "../../../src/reviews/decline-review-assignment.ts";
import { readProcessRow } from "../../../src/reviews/read-process-rows.ts";
import { buildReviewBundle } from "../../../src/reviews/review-bundle.ts";
import { submitReviewResponse } from "../../../src/reviews/submit-review-response.ts";
import { describeWithDatabase, useTestDatabase } from "../../support/test-database.ts";
import { humanNode, kOfN, protocol, when } from "./support/protocols.ts";
import {
  ESSAY,
  listProblem,
  type ReviewWorld,
  reviewers,
  reviewWorld,
  seedOrganization,
  startOn,
  verdict,
} from "./support/review-harness.ts";

describeWithDatabase("review bundles", () => {
  const db = useTestDatabase();
  let world: ReviewWorld;

  beforeAll(async () => {
    world = await reviewWorld(db.sql);
  });

  const large = "x".repeat(INLINE_TEXT_BYTES + 1);
  const artifacts = [
    ESSAY,
    { role: "appendix", filename: "appendix.txt", media_type: "text/plain", content: large },
    {
      role: "figure",
      filename: "figure.png",
      media_type: "image/png",
      content: new Uint8Array([0x89, 0x50, 0, 1]),
    },
  ];

  it("lists the artifacts by reference, inlining small text, previewing large text, never inlining binary", async () => {
    const process = await startOn(
      world,
      protocol([humanNode("readers"), kOfN("decision", "readers", 2, 1)], "decision"),
      {
        artifacts,
      },
    );
    const bundle = await buildReviewBundle(world.services, process, "readers");
    const [essay, appendix, figure] = bundle.materials;
    expect(essay).toMatchObject({
      kind: "artifact",
      key: "essay",
      filename: "essay.md",
      media_type: "text/markdown",
    });
    expect(essay!.text).toBe(ESSAY.content);
    expect(essay!.resource_uri).toMatch(/^svc:\/\/artifacts\/art_/);
    expect(appendix).toMatchObject({ key: "appendix", size_bytes: INLINE_TEXT_BYTES + 1, truncated: true });
    expect(appendix!.text).toBeUndefined();
    expect(appendix!.preview).toBe("x".repeat(PREVIEW_CHARS));
    expect(appendix!.omitted_reason).toContain("larger than");
    expect(figure).toMatchObject({ key: "figure", truncated: true });
    expect(figure!.text ?? figure!.preview).toBeUndefined();
    expect(bundle.subject.statement_md).toContain("essay");
  });

  it("hides the submitter's identity and organization when the node says so, and shows them otherwise", async () => {
    const org = await seedOrganization(db.sql, [{ userId: world.submitter.user.id }]);
    const hidden = await startOn(
      world,
      protocol(
        [
          humanNode("readers", { hidden: ["submitter_identity", "submitter_organization"] }),
          kOfN("decision", "readers", 2, 1),
        ],
        "decision",
      ),
      { subject_organization_id: org },
    );
    const blind = await buildReviewBundle(world.services, hidden, "readers");
    expect(blind.subject.submitter).toBeNull();
    expect(blind.subject.organization).toBeNull();
    const text = JSON.stringify(blind);
    expect(text).not.toContain(world.submitter.user.id);
    expect(text).not.toContain(world.submitter.user.handle);
    expect(text).not.toContain(org);

    const open = await startOn(
      world,
      protocol([humanNode("readers"), kOfN("decision", "readers", 2, 1)], "decision"),
      {
        subject_organization_id: org,
      },
    );
    const seen = await buildReviewBundle(world.services, open, "readers");
    expect(seen.subject.submitter).toEqual({
      user_id: world.submitter.user.id,
      handle: world.submitter.user.handle,
    });
    expect(seen.subject.organization?.id).toBe(org);
  });

  it("shows only the prior nodes it names, without scores when prior_scores is hidden, and nothing of its own node", async () => {
    const document = protocol(
      [
        humanNode("first", { count: 2 }),
        kOfN("first_decision", "first", 2, 2),
        humanNode("second", {
          count: 2,
          when: when("first_decision", "unresolved"),
          prior_nodes: ["first", "first_decision"],
          hidden: ["prior_scores", "attempt_notes"],
        }),
        kOfN("decision", "second", 1, 1),
      ],
      "decision",
    );
    const process = await startOn(world, document);
    await advanceReviewProcess(world.services, process.id);
    for (const response of [verdict("accept", { score: 0.9 }), verdict("reject", { score: 0.1 })]) {
      const [user] = await reviewers(db.sql, 1);
      const held = await claimReview(world.services, user!.user.id, {
        review_process_id: process.id,
        node_id: "first",
      });
      await submitReviewResponse(world.services, user!.user.id, {
        assignment_id: held.id,
        ...response,
        confidence: 0.7,
      });
      world.clock.advanceMinutes(1);
    }
    // One reviewer of the second node submits; the other's bundle must not show it.
    const [early] = await reviewers(db.sql, 1);
    const held = await claimReview(world.services, early!.user.id, {
      review_process_id: process.id,
      node_id: "second",
    });
    await submitReviewResponse(world.services, early!.user.id, {
      assignment_id: held.id,
      ...verdict("accept"),
      rationale_md: "SECRET-SECOND-NODE-RATIONALE",
    });
    const bundle = await buildReviewBundle(
      world.services,
      (await readProcessRow(db.sql, process.id))!,
      "second",
    );
    expect(bundle.prior_nodes.map((prior) => prior.node_id)).toEqual(["first", "first_decision"]);
    const first = bundle.prior_nodes[0]!;
    if (first.status !== "completed" || first.type !== "review")
      throw new Error("first should be a completed review");
    expect(first.judgments.map((j) => j.response)).toEqual([{ verdict: "accept" }, { verdict: "reject" }]);
    expect(first.judgments.every((j) => !("confidence" in j))).toBe(true);
    expect(bundle.prior_nodes[1]).toMatchObject({ outcome: "unresolved", reduction: null });
    expect(bundle.attempt_notes).toBeNull();
    expect(JSON.stringify(bundle)).not.toContain("SECRET-SECOND-NODE-RATIONALE");
    expect(JSON.stringify(bundle)).not.toContain("0.9");
  });

  it("lets a reviewer with a live or submitted assignment read the subject's artifacts while the Problem is readable to them, and nobody else", async () => {
    const process = await startOn(
      world,
      protocol([humanNode("readers"), kOfN("decision", "readers", 2, 1)], "decision"),
    );
    await advanceReviewProcess(world.services, process.id);
    const bundle = await buildReviewBundle(world.services, process, "readers");
    const artifactId = bundle.materials[0]!.resource_uri!.replace("svc://artifacts/", "");
    const [reviewer, stranger] = await reviewers(db.sql, 2);
    const viewer = (user: typeof reviewer) => ({ userId: user!.user.id, isAdministrator: false });
    const read = (user: typeof reviewer) =>
      readArtifact(db.sql, viewer(user), artifactId, { access: "read", now: world.clock() });
    // The Problem is listed: another participant's Artifact is theirs alone until a seat is held.
    await expect(read(reviewer)).rejects.toMatchObject({ code: "not_yours" });
    const held = await claimReview(world.services, reviewer!.user.id, {
      review_process_id: process.id,
      node_id: "readers",
    });
    await expect(read(reviewer)).resolves.toMatchObject({ id: artifactId });
    await expect(read(stranger)).rejects.toMatchObject({ code: "not_yours" });
    // A declined claim reads nothing; a submitted one keeps reading.
    await declineReviewAssignment(world.services, reviewer!.user.id, held.id);
    await expect(read(reviewer)).rejects.toMatchObject({ code: "not_yours" });
    const again = await claimReview(world.services, reviewer!.user.id, {
      review_process_id: process.id,
      node_id: "readers",
    });
    await submitReviewResponse(world.services, reviewer!.user.id, {
      assignment_id: again.id,
      ...verdict("accept"),
    });
    await expect(read(reviewer)).resolves.toMatchObject({ id: artifactId });
    // Once the Problem is private, even a submitted seat reads nothing of it.
    await db.sql`update problems set visibility = 'private' where id = ${world.problem.problem_id}`;
    try {
      await expect(read(reviewer)).rejects.toMatchObject({ code: "not_found" });
    } finally {
      await listProblem(db.sql, world.problem.problem_id);
    }
  });
});
