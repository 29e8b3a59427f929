import { afterAll, beforeAll, expect, it } from "vitest";
import type { Services } from "../../../src/core/services/services.ts";
import { clientLines, envelopeOf, type TestClient } from "../../edges/mcp/support/mcp-clients.ts";
import { type RunningApp, startApp } from "../../edges/mcp/support/start-app.ts";
import { type SeededUser, seedUser } from "../../support/seed-records.ts";
import { describeWithDatabase, useTestDatabase } from "../../support/test-database.ts";
import { testServices } from "../../support/test-services.ts";
import {
  completeNode,
  fixtureNode,
  fixtureProtocol,
  insertAssignment,
  openNode,
  type SeededReview,
  seedReview,
} from "./support/review-fixture.ts";

const T0 = new Date("2026-03-02T10:00:00Z");
const ALICE_RATIONALE = "alice-private-rationale: the argument holds";

/**
 * The review read paths (tools, the resource, both pages) over the real MCP client and HTTP, with
 * processes written straight into the tables: who reads what, judgments withheld until their node
 * completes, and the submitter blinded everywhere a reviewer looks.
 */
describeWithDatabase("review read paths", () => {
  const db = useTestDatabase();
  let now = T0;
  let services: Services;
  let app: RunningApp;
  let owner: SeededUser;
  let submitter: SeededUser;
  let alice: SeededUser;
  let bob: SeededUser;
  let carol: SeededUser;
  let review: SeededReview;
  let bobAssignment: string;
  let aliceAssignment: string;
  const clients = new Map<string, TestClient>();

  beforeAll(async () => {
    services = testServices(db.sql, { clock: () => now });
    app = await startApp(services);
    owner = await seedUser(db.sql, "essay-owner", { scopes: ["read", "contribute"] });
    submitter = await seedUser(db.sql, "subm-zq7x", { scopes: ["read", "contribute"] });
    alice = await seedUser(db.sql, "alice-reviewer", { scopes: ["read", "contribute"] });
    bob = await seedUser(db.sql, "bob-reviewer", { scopes: ["read", "contribute"] });
    carol = await seedUser(db.sql, "carol-reviewer", { scopes: ["read", "contribute"] });
    review = await seedReview(services, {
      owner: owner.id,
      submitter: submitter.id,
      slug: "essay-one",
      protocol: fixtureProtocol([fixtureNode("readers")]),
      now: T0,
    });
    await openNode(services, review.processId, "readers", T0);
    aliceAssignment = await insertAssignment(services, {
      processId: review.processId,
      nodeId: "readers",
      userId: alice.id,
      now: T0,
      verdict: "accept",
      rationale: ALICE_RATIONALE,
    });
    bobAssignment = await insertAssignment(services, {
      processId: review.processId,
      nodeId: "readers",
      userId: bob.id,
      now: new Date(T0.getTime() + 60_000),
    });
  }, 60_000);

  afterAll(async () => {
    for (const client of clients.values()) await client.close();
    await app?.close();
  });

  async function clientOf(user: SeededUser): Promise<TestClient> {
    let client = clients.get(user.id);
    if (!client) {
      client = await clientLines[0].connect(app.url, user.token, "?toolsets=all");
      clients.set(user.id, client);
    }
    return client;
  }

  async function call(user: SeededUser, name: string, args: Record<string, unknown>) {
    const result = await (await clientOf(user)).callTool(name, args);
    const envelope = envelopeOf(result);
    if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(envelope)}`);
    return envelope as Record<string, any>;
  }

  async function refusal(user: SeededUser, name: string, args: Record<string, unknown>) {
    const result = await (await clientOf(user)).callTool(name, args);
    expect(result.isError).toBe(true);
    return (envelopeOf(result) as { error: Record<string, unknown> }).error;
  }

  async function page(user: SeededUser | null, url: string, accept?: string) {
    const headers: Record<string, string> = {};
    if (user) headers.authorization = `Bearer ${user.token}`;
    if (accept) headers.accept = accept;
    const response = await fetch(url, { headers });
    return {
      status: response.status,
      type: response.headers.get("content-type") ?? "",
      body: await response.text(),
    };
  }

  function expectBlind(text: string, label: string) {
    expect(text, `${label} names the submitter's id`).not.toContain(submitter.id);
    expect(text, `${label} names the submitter's handle`).not.toContain(submitter.handle);
  }

  it("1. shows managers everything but judgments, which wait until the node completes", async () => {
    const { review_process } = await call(owner, "get_review_process", {
      review_process_id: review.processId,
    });
    expect(review_process).toMatchObject({
      id: review.processId,
      reader_role: "manager",
      status: "open",
      protocol_hash: expect.stringMatching(/^sha256:/),
      subject: { kind: "submission", id: review.submissionId, submitter_user_id: submitter.id, hidden: [] },
    });
    expect(review_process.protocol_snapshot.output).toBe("decision");
    const readers = review_process.nodes.find((n: { id: string }) => n.id === "readers");
    expect(readers).toMatchObject({ status: "open", seats: 2, open_seats: 0, claimed: 1, submitted: 1 });
    const alices = readers.assignments.find((a: { id: string }) => a.id === aliceAssignment);
    expect(alices).toMatchObject({
      reviewer_user_id: alice.id,
      status: "submitted",
      judgment: null,
      judgment_withheld: true,
    });
    expect(JSON.stringify(review_process)).not.toContain(ALICE_RATIONALE);
  });

  it("2. shows the submitter the process but never who reviewed it", async () => {
    const { review_process } = await call(submitter, "get_review_process", {
      review_process_id: review.processId,
    });
    expect(review_process.reader_role).toBe("submitter");
    const readers = review_process.nodes.find((n: { id: string }) => n.id === "readers");
    expect(readers.assignments).toHaveLength(2);
    for (const assignment of readers.assignments) {
      expect(assignment.reviewer_user_id).toBeNull();
      expect(assignment.assignment_url).toBeNull();
    }
    const text = JSON.stringify(review_process);
    expect(text).not.toContain(alice.id);
    expect(text).not.toContain(bob.id);
  });

  it("3. gives anyone without a part in the process not_found", async () => {
    expect(await refusal(carol, "get_review_process", { review_process_id: review.processId })).toMatchObject(
      {
        code: "not_found",
      },
    );
    const [content] = await (await clientOf(owner)).readResource(
      `svc://review-processes/${review.processId}`,
    );
    expect(JSON.parse(content!.text!)).toMatchObject({ id: review.processId, reader_role: "manager" });
  });

  it("4. blinds the submitter and withholds the other reviewer's response on every path a reviewer reads", async () => {
    const seen: Array<[string, string]> = [];
    const picked = await call(carol, "pick_review", {});
    seen.push(["pick_review", JSON.stringify(picked)]);
    const caseForCarol = await call(carol, "get_review_case", {
      review_process_id: review.processId,
      node_id: "readers",
    });
    expect(caseForCarol.assignment_url).toBeNull();
    expect(caseForCarol.review_case.bundle.subject.submitter).toBeNull();
    seen.push(["get_review_case (eligible)", JSON.stringify(caseForCarol)]);
    const caseForBob = await call(bob, "get_review_case", {
      review_process_id: review.processId,
      node_id: "readers",
    });
    expect(caseForBob.assignment_url).toMatch(new RegExp(`/review-assignments/${bobAssignment}$`));
    expect(caseForBob.review_case).toMatchObject({ assignment_id: bobAssignment, open_seats: 0 });
    seen.push(["get_review_case (holder)", JSON.stringify(caseForBob)]);
    const assignment = await call(bob, "get_review_assignment", { assignment_id: bobAssignment });
    expect(assignment.assignment).toMatchObject({
      id: bobAssignment,
      status: "claimed",
      reviewer_user_id: bob.id,
    });
    expect(assignment.bundle.materials.some((m: { text?: string }) => m.text === review.artifactText)).toBe(
      true,
    );
    seen.push(["get_review_assignment", JSON.stringify(assignment)]);
    const mine = await call(bob, "list_my_review_assignments", {});
    expect(mine.assignments.map((a: { id: string }) => a.id)).toEqual([bobAssignment]);
    expect(mine.assignments[0].case_url).toBe(caseForBob.case_url);
    seen.push(["list_my_review_assignments", JSON.stringify(mine)]);
    for (const reviewer of [bob, alice]) {
      const process = await call(reviewer, "get_review_process", { review_process_id: review.processId });
      expect(process.review_process).toMatchObject({
        reader_role: "reviewer",
        subject: { submitter_user_id: null, submitter_handle: null, hidden: ["submitter_identity"] },
      });
      if (reviewer === bob) seen.push(["get_review_process", JSON.stringify(process)]);
      else expectBlind(JSON.stringify(process), "get_review_process (alice)");
    }
    const [resource] = await (await clientOf(bob)).readResource(`svc://review-processes/${review.processId}`);
    seen.push(["resource", resource!.text!]);
    for (const accept of [undefined, "application/json"]) {
      const casePage = await page(bob, caseForBob.case_url, accept);
      expect(casePage.status).toBe(200);
      seen.push([`case page ${accept ?? "html"}`, casePage.body]);
      const assignmentPage = await page(bob, caseForBob.assignment_url, accept);
      expect(assignmentPage.status).toBe(200);
      seen.push([`assignment page ${accept ?? "html"}`, assignmentPage.body]);
    }
    for (const [label, text] of seen) {
      expectBlind(text, label);
      expect(text, `${label} shows alice's rationale`).not.toContain(ALICE_RATIONALE);
    }
    // Alice reads her own judgment; the judgment of nobody else is in hers.
    const hers = await call(alice, "get_review_assignment", { assignment_id: aliceAssignment });
    expect(hers.assignment.judgment).toMatchObject({
      response: { verdict: "accept" },
      rationale_md: ALICE_RATIONALE,
    });
    expect(hers.bundle).toBeNull();
  });

  it("5. refuses cases that do not exist, are not open, or that the caller may not review", async () => {
    const args = { review_process_id: review.processId, node_id: "readers" };
    expect(
      await refusal(carol, "get_review_case", { ...args, review_process_id: "rpr_00000000000000000000" }),
    ).toMatchObject({ code: "not_found" });
    expect(await refusal(carol, "get_review_case", { ...args, node_id: "readers_k" })).toMatchObject({
      code: "not_found",
    });
    expect(await refusal(submitter, "get_review_case", args)).toMatchObject({ code: "conflict_of_interest" });
    const named = await seedReview(services, {
      owner: owner.id,
      submitter: submitter.id,
      slug: "essay-named",
      protocol: fixtureProtocol([
        fixtureNode("panel", { eligibility: { rule: "named_users", user_ids: [alice.id] } }),
      ]),
      now,
    });
    expect(
      await refusal(carol, "get_review_case", { review_process_id: named.processId, node_id: "panel" }),
    ).toMatchObject({ code: "node_not_open" });
    await openNode(services, named.processId, "panel", now);
    expect(
      await refusal(carol, "get_review_case", { review_process_id: named.processId, node_id: "panel" }),
    ).toMatchObject({ code: "not_eligible" });
    const forAlice = await call(alice, "get_review_case", {
      review_process_id: named.processId,
      node_id: "panel",
    });
    expect(forAlice.review_case).toMatchObject({ open_seats: 2, assignment_id: null });
    const seats = (await call(carol, "pick_review", {})).seats as Array<{ review_process_id: string }>;
    expect(seats.map((s) => s.review_process_id)).not.toContain(named.processId);
  });

  it("6. offers only seats the caller may claim, filtered by problem", async () => {
    const other = await seedReview(services, {
      owner: owner.id,
      submitter: submitter.id,
      slug: "essay-two",
      protocol: fixtureProtocol([fixtureNode("readers", { count: 1 })]),
      now,
    });
    await openNode(services, other.processId, "readers", now);
    const all = (await call(carol, "pick_review", {})).seats;
    expect(all).toContainEqual({
      review_process_id: other.processId,
      node_id: "readers",
      node_title: "Readers",
      problem_id: other.problemId,
      open_seats: 1,
      case_url: `${app.url}/reviews/${other.processId}/nodes/readers`,
      deadline_at: new Date(now.getTime() + 72 * 3600_000).toISOString(),
    });
    // The first process is full (alice submitted, bob holds the other seat).
    expect(all.map((s: { review_process_id: string }) => s.review_process_id)).not.toContain(
      review.processId,
    );
    const filtered = (await call(carol, "pick_review", { problem: "essay-two" })).seats;
    expect(filtered.map((s: { review_process_id: string }) => s.review_process_id)).toEqual([
      other.processId,
    ]);
    expect((await call(submitter, "pick_review", {})).seats).toEqual([]);
    expect(await refusal(carol, "pick_review", { problem: "no-such-problem" })).toMatchObject({
      code: "not_found",
    });
    expect(await refusal(carol, "pick_review", { campaign: "no-such-campaign" })).toMatchObject({
      code: "not_found",
    });
  });

  it("7. escapes author strings on the pages, answers JSON on request, and needs a bearer token or a session", async () => {
    const evil = await seedReview(services, {
      owner: owner.id,
      submitter: submitter.id,
      slug: "essay-evil",
      protocol: fixtureProtocol([
        fixtureNode("readers", { instructions: "<script>alert('x')</script> & more", title: "<b>bold</b>" }),
      ]),
      now,
    });
    await openNode(services, evil.processId, "readers", now);
    const url = `${app.url}/reviews/${evil.processId}/nodes/readers`;
    const html = await page(carol, url);
    expect(html.type).toMatch(/text\/html/);
    expect(html.body).not.toContain("<script>alert");
    expect(html.body).not.toContain("<b>bold</b>");
    expect(html.body).toContain("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; more");
    const json = await page(carol, url, "application/json");
    expect(JSON.parse(json.body)).toMatchObject({ review_case: { node_id: "readers" }, case_url: url });
    // Without a credential a program asking for JSON gets 401, and a browser is sent to sign in and back.
    expect((await page(null, url, "application/json")).status).toBe(401);
    const redirected = await fetch(url, { redirect: "manual" });
    expect(redirected.status).toBe(303);
    expect(redirected.headers.get("location")).toBe(
      `/sign-in?return_to=${encodeURIComponent(new URL(url).pathname)}`,
    );
    expect((await page(carol, `${app.url}/review-assignments/${bobAssignment}`)).status).toBe(404);
  });

  it("8. annotates reads read-only and declines and submissions destructive", async () => {
    const listed = await (await clientOf(carol)).listTools();
    const annotations = (name: string) => listed.find((t) => t.name === name)?.annotations;
    for (const name of [
      "get_review_protocol",
      "get_review_process",
      "pick_review",
      "get_review_case",
      "list_my_review_assignments",
      "get_review_assignment",
    ])
      expect(annotations(name), name).toMatchObject({ readOnlyHint: true });
    expect(annotations("claim_review")).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    for (const name of ["decline_review_assignment", "submit_review_response"])
      expect(annotations(name), name).toMatchObject({ readOnlyHint: false, destructiveHint: true });
  });

  it("9. reads a hold that passed as lapsed, and its seat open again, before any timer records it", async () => {
    now = new Date(T0.getTime() + 3 * 3600_000);
    const mine = await call(bob, "list_my_review_assignments", { status: "lapsed" });
    expect(mine.assignments.map((a: { id: string }) => a.id)).toEqual([bobAssignment]);
    expect(mine.assignments[0].status).toBe("lapsed");
    const { review_process } = await call(owner, "get_review_process", {
      review_process_id: review.processId,
    });
    const readers = review_process.nodes.find((n: { id: string }) => n.id === "readers");
    expect(readers).toMatchObject({ open_seats: 1, claimed: 0, submitted: 1 });
    const seats = (await call(bob, "pick_review", { problem: "essay-one" })).seats;
    expect(seats).toMatchObject([{ review_process_id: review.processId, open_seats: 1 }]);
  });

  it("10. shows every judgment of a node once it completed", async () => {
    await completeNode(services, review.processId, "readers", now);
    const { review_process } = await call(submitter, "get_review_process", {
      review_process_id: review.processId,
    });
    const readers = review_process.nodes.find((n: { id: string }) => n.id === "readers");
    const alices = readers.assignments.find((a: { id: string }) => a.id === aliceAssignment);
    expect(alices).toMatchObject({
      judgment: { response: { verdict: "accept" }, rationale_md: ALICE_RATIONALE },
      judgment_withheld: false,
    });
  });
});
