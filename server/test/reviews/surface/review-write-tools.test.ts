import { afterAll, beforeAll, expect, it } from "vitest";
import type { Services } from "../../../src/core/services/services.ts";
import { clientLines, envelopeOf, type TestClient } from "../../edges/mcp/support/mcp-clients.ts";
import { type RunningApp, startApp } from "../../edges/mcp/support/start-app.ts";
import { type SeededUser, seedUser } from "../../support/seed-records.ts";
import { describeWithDatabase, useTestDatabase } from "../../support/test-database.ts";
import { testServices } from "../../support/test-services.ts";
import { fixtureNode, fixtureProtocol, openNode, seedReview } from "./support/review-fixture.ts";

const T0 = new Date("2026-03-02T10:00:00Z");

/** claim_review and decline_review_assignment over MCP: the seat taken, refused, given back. */
describeWithDatabase("review write tools", () => {
  const db = useTestDatabase();
  const now = T0;
  let services: Services;
  let app: RunningApp;
  const clients: TestClient[] = [];
  const users: Record<string, SeededUser> = {};

  beforeAll(async () => {
    services = testServices(db.sql, { clock: () => now });
    app = await startApp(services);
    for (const handle of ["owner-w", "submitter-w", "carol-w", "dave-w"])
      users[handle] = await seedUser(db.sql, handle, { scopes: ["read", "contribute"] });
  }, 60_000);

  afterAll(async () => {
    for (const client of clients) await client.close();
    await app?.close();
  });

  async function as(user: SeededUser) {
    const client = await clientLines[0].connect(app.url, user.token);
    clients.push(client);
    return async (name: string, args: Record<string, unknown>) => {
      const result = await client.callTool(name, args);
      return { ...(envelopeOf(result) as Record<string, any>), isError: result.isError === true } as Record<
        string,
        any
      >;
    };
  }

  it("takes the one seat, refuses the next claimant, and reopens it on decline", async () => {
    const review = await seedReview(services, {
      owner: users["owner-w"]!.id,
      submitter: users["submitter-w"]!.id,
      slug: "essay-seat",
      protocol: fixtureProtocol([fixtureNode("readers", { count: 1 })]),
      now,
    });
    await openNode(services, review.processId, "readers", now);
    const args = { review_process_id: review.processId, node_id: "readers" };
    const carol = await as(users["carol-w"]!);
    const dave = await as(users["dave-w"]!);

    const claim = await carol("claim_review", args);
    expect(claim.isError).toBe(false);
    expect(claim).toMatchObject({
      assignment: { status: "claimed", reviewer_user_id: users["carol-w"]!.id },
      hold_until: new Date(T0.getTime() + 120 * 60_000).toISOString(),
    });
    expect(claim.bundle.materials.some((m: { text?: string }) => m.text === review.artifactText)).toBe(true);
    expect(await dave("claim_review", args)).toMatchObject({
      isError: true,
      error: { code: "seat_unavailable" },
    });
    expect((await dave("pick_review", {})).seats).toEqual([]);

    const declined = await carol("decline_review_assignment", { assignment_id: claim.assignment.id });
    expect(declined).toMatchObject({
      isError: false,
      assignment: { id: claim.assignment.id, status: "declined" },
    });
    expect(await carol("decline_review_assignment", { assignment_id: claim.assignment.id })).toMatchObject({
      isError: true,
      error: { code: "assignment_ended" },
    });
    expect((await dave("pick_review", {})).seats).toMatchObject([{ review_process_id: review.processId }]);
    expect(await dave("claim_review", args)).toMatchObject({
      isError: false,
      assignment: { status: "claimed" },
    });
    expect(await dave("decline_review_assignment", { assignment_id: claim.assignment.id })).toMatchObject({
      isError: true,
    });
  });

  it("refuses a claim by someone the node does not name, and one on an unknown process", async () => {
    const review = await seedReview(services, {
      owner: users["owner-w"]!.id,
      submitter: users["submitter-w"]!.id,
      slug: "essay-named-w",
      protocol: fixtureProtocol([
        fixtureNode("panel", { eligibility: { rule: "named_users", user_ids: [users["carol-w"]!.id] } }),
      ]),
      now,
    });
    await openNode(services, review.processId, "panel", now);
    const dave = await as(users["dave-w"]!);
    expect(
      await dave("claim_review", { review_process_id: review.processId, node_id: "panel" }),
    ).toMatchObject({
      isError: true,
      error: { code: "not_eligible" },
    });
    expect(
      await dave("claim_review", { review_process_id: "rpr_00000000000000000000", node_id: "panel" }),
    ).toMatchObject({ isError: true, error: { code: "not_found" } });
    expect(await dave("get_review_assignment", { assignment_id: "ras_00000000000000000000" })).toMatchObject({
      isError: true,
      error: { code: "not_found" },
    });
  });
});
