import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Services } from "../../src/core/services/services.ts";
import { acceptInvitation } from "../../src/organizations/accept-invitation.ts";
import { createOrganization } from "../../src/organizations/create-organization.ts";
import { inviteMember } from "../../src/organizations/invite-member.ts";
import { leaveOrganization } from "../../src/organizations/remove-member.ts";
import { clientLines, envelopeOf, type TestClient } from "../edges/mcp/support/mcp-clients.ts";
import { type RunningApp, startApp } from "../edges/mcp/support/start-app.ts";
import {
  fixtureNode,
  fixtureProtocol,
  openNode,
  seedReview,
} from "../reviews/surface/support/review-fixture.ts";
import { type SeededProblem, type SeededUser, seedProblem, seedUser } from "../support/seed-records.ts";
import { describeWithDatabase, useTestDatabase } from "../support/test-database.ts";
import { testServices } from "../support/test-services.ts";

type Envelope = Record<string, any>;

const T0 = new Date("2026-03-02T10:00:00Z");

/** Organizations over MCP, as teams use them: create, invite, accept, leave, attribute, review. */
describeWithDatabase("organizations", () => {
  const db = useTestDatabase();
  let services: Services;
  let app: RunningApp;
  let problem: SeededProblem;
  const clients: TestClient[] = [];
  const users: Record<string, SeededUser> = {};

  beforeAll(async () => {
    services = testServices(db.sql, { clock: () => T0 });
    app = await startApp(services);
    for (const handle of ["ada", "bob", "cy", "dee", "eve", "owner-o"]) {
      users[handle] = await seedUser(db.sql, handle, { scopes: ["read", "contribute"] });
    }
    users.reader = await seedUser(db.sql, "reader-o", { scopes: ["read"] });
    problem = await seedProblem(services, {
      owner: users["owner-o"]!.id,
      slug: "team-work",
      visibility: "listed",
    });
  }, 60_000);

  afterAll(async () => {
    for (const client of clients) await client.close();
    await app?.close();
  });

  const connections = new Map<string, TestClient>();
  async function client(handle: string): Promise<TestClient> {
    let found = connections.get(handle);
    if (!found) {
      found = await clientLines[0].connect(app.url, users[handle]!.token);
      clients.push(found);
      connections.set(handle, found);
    }
    return found;
  }

  /** Calls a tool as `handle` and returns its envelope; throws when it is a tool error. */
  async function call(handle: string, name: string, args: Record<string, unknown> = {}): Promise<Envelope> {
    const result = await (await client(handle)).callTool(name, args);
    const envelope = envelopeOf(result);
    if (result.isError) throw new Error(`${name} as ${handle} failed: ${JSON.stringify(envelope)}`);
    return envelope as Envelope;
  }

  /** Calls a tool as `handle` expecting a tool error, and returns its `error`. */
  async function refused(
    handle: string,
    name: string,
    args: Record<string, unknown> = {},
  ): Promise<Envelope> {
    const result = await (await client(handle)).callTool(name, args);
    expect(result.isError, `${name} as ${handle} should be refused`).toBe(true);
    return (envelopeOf(result) as { error: Envelope }).error;
  }

  describe("a team's life", () => {
    it("creates an Organization with its creator as owner, shown by whoami with role and joined_at", async () => {
      const created = await call("ada", "create_organization", {
        slug: "lovelace-lab",
        name: "Lovelace Lab",
      });
      expect(created).toMatchObject({
        organization: {
          id: expect.stringMatching(/^org_[0-9a-z]{20}$/),
          slug: "lovelace-lab",
          name: "Lovelace Lab",
        },
        your_role: "owner",
        members: [{ user_id: users.ada!.id, handle: "ada", role: "owner", joined_at: expect.any(String) }],
        invitations: [],
      });
      expect((await call("ada", "whoami")).memberships).toEqual([
        {
          organization_slug: "lovelace-lab",
          organization_name: "Lovelace Lab",
          role: "owner",
          joined_at: created.members[0].joined_at,
        },
      ]);
    });

    it("refuses a bad slug, a taken slug and a read-only token", async () => {
      expect(await refused("bob", "create_organization", { slug: "Bad Slug", name: "X" })).toMatchObject({
        code: "invalid_input",
      });
      expect(
        await refused("bob", "create_organization", { slug: "lovelace-lab", name: "Again" }),
      ).toMatchObject({
        code: "conflict",
        field: "slug",
      });
      expect(await refused("reader", "create_organization", { slug: "readers", name: "R" })).toMatchObject({
        code: "forbidden",
        scope: "contribute",
      });
    });

    it("invites a member who sees the invitation in whoami and accepts it", async () => {
      const { invitation } = await call("ada", "invite_organization_member", {
        organization: "lovelace-lab",
        user: "bob",
      });
      expect(invitation).toMatchObject({ organization_slug: "lovelace-lab", handle: "bob", role: "member" });
      // Inviting again with the same role returns the same open invitation.
      expect(
        (await call("ada", "invite_organization_member", { organization: "lovelace-lab", user: "bob" }))
          .invitation,
      ).toEqual(invitation);
      expect((await call("bob", "whoami")).invitations).toEqual([
        {
          organization_slug: "lovelace-lab",
          organization_name: "Lovelace Lab",
          role: "member",
          invited_by_handle: "ada",
          invited_at: invitation.invited_at,
        },
      ]);
      // An invitee reads the Organization before joining; owners see open invitations.
      expect(await call("bob", "get_organization", { organization: "lovelace-lab" })).toMatchObject({
        your_role: null,
        invitations: [],
      });
      expect((await call("ada", "get_organization", { organization: "lovelace-lab" })).invitations).toEqual([
        expect.objectContaining({ handle: "bob", role: "member", invited_by_handle: "ada" }),
      ]);
      const joined = await call("bob", "accept_organization_invitation", { organization: "lovelace-lab" });
      expect(joined.your_role).toBe("member");
      expect(joined.members.map((m: Envelope) => [m.handle, m.role])).toEqual([
        ["ada", "owner"],
        ["bob", "member"],
      ]);
      const bobs = await call("bob", "whoami");
      expect(bobs.invitations).toEqual([]);
      expect(bobs.memberships).toEqual([
        expect.objectContaining({
          organization_slug: "lovelace-lab",
          role: "member",
          joined_at: expect.any(String),
        }),
      ]);
      expect(
        await refused("bob", "accept_organization_invitation", { organization: "lovelace-lab" }),
      ).toMatchObject({
        code: "not_found",
      });
    });

    it("refuses invitations from members who are not owners, of unknown users and to an existing role", async () => {
      expect(
        await refused("bob", "invite_organization_member", { organization: "lovelace-lab", user: "cy" }),
      ).toMatchObject({ code: "not_a_member", role: "member" });
      expect(
        await refused("cy", "invite_organization_member", { organization: "lovelace-lab", user: "dee" }),
      ).toMatchObject({ code: "not_a_member" });
      expect(
        await refused("ada", "invite_organization_member", {
          organization: "lovelace-lab",
          user: "nobody-here",
        }),
      ).toMatchObject({ code: "not_found", field: "user" });
      expect(
        await refused("ada", "invite_organization_member", { organization: "no-such-org", user: "cy" }),
      ).toMatchObject({ code: "not_found", field: "organization" });
      expect(
        await refused("ada", "invite_organization_member", { organization: "lovelace-lab", user: "bob" }),
      ).toMatchObject({ code: "conflict", field: "user" });
      // Outsiders do not learn the Organization exists.
      expect(await refused("cy", "get_organization", { organization: "lovelace-lab" })).toMatchObject({
        code: "not_found",
      });
    });

    it("keeps an owner: the last owner cannot leave until a member accepts the owner role", async () => {
      expect(await refused("ada", "leave_organization", { organization: "lovelace-lab" })).toMatchObject({
        code: "last_owner",
      });
      expect(
        await refused("ada", "remove_organization_member", { organization: "lovelace-lab", user: "ada" }),
      ).toMatchObject({ code: "last_owner" });
      await call("ada", "invite_organization_member", {
        organization: "lovelace-lab",
        user: "bob",
        role: "owner",
      });
      const before = (await call("bob", "whoami")).memberships[0].joined_at;
      expect(
        (await call("bob", "accept_organization_invitation", { organization: "lovelace-lab" })).your_role,
      ).toBe("owner");
      // A role change keeps the date the member joined.
      expect((await call("bob", "whoami")).memberships[0]).toMatchObject({
        role: "owner",
        joined_at: before,
      });
      expect(await call("ada", "leave_organization", { organization: "lovelace-lab" })).toMatchObject({
        organization_slug: "lovelace-lab",
        user: { id: users.ada!.id, handle: "ada" },
        role: "owner",
        invitation_cancelled: false,
      });
      expect((await call("ada", "whoami")).memberships).toEqual([]);
      expect(await refused("ada", "leave_organization", { organization: "lovelace-lab" })).toMatchObject({
        code: "not_a_member",
      });
    });

    it("removes members and cancels invitations; invitees may decline", async () => {
      await call("bob", "invite_organization_member", { organization: "lovelace-lab", user: "cy" });
      await call("cy", "accept_organization_invitation", { organization: "lovelace-lab" });
      expect(
        await call("bob", "remove_organization_member", { organization: "lovelace-lab", user: "cy" }),
      ).toMatchObject({ role: "member", invitation_cancelled: false });
      expect((await call("cy", "whoami")).memberships).toEqual([]);
      await call("bob", "invite_organization_member", { organization: "lovelace-lab", user: "dee" });
      expect(
        await call("bob", "remove_organization_member", { organization: "lovelace-lab", user: "dee" }),
      ).toMatchObject({ role: null, invitation_cancelled: true });
      expect((await call("dee", "whoami")).invitations).toEqual([]);
      await call("bob", "invite_organization_member", { organization: "lovelace-lab", user: "dee" });
      expect(await call("dee", "decline_organization_invitation", { organization: "lovelace-lab" })).toEqual({
        declined: { organization_slug: "lovelace-lab", role: "member" },
      });
      expect(
        await refused("bob", "remove_organization_member", { organization: "lovelace-lab", user: "dee" }),
      ).toMatchObject({ code: "not_found", field: "user" });
    });
  });

  describe("over /api", () => {
    const get = (path: string, handle: string) =>
      fetch(`${app.url}${path}`, { headers: { authorization: `Bearer ${users[handle]!.token}` } });

    it("GET /api/whoami and GET /api/organizations/{organization} answer what the tools answer", async () => {
      const whoami = await get("/api/whoami", "bob");
      expect(whoami.status).toBe(200);
      expect(await whoami.json()).toEqual(await call("bob", "whoami"));
      const organization = await get("/api/organizations/lovelace-lab", "bob");
      expect(organization.status).toBe(200);
      expect(await organization.json()).toEqual(
        await call("bob", "get_organization", { organization: "lovelace-lab" }),
      );
      const outsider = await get("/api/organizations/lovelace-lab", "eve");
      expect(outsider.status).toBe(404);
      expect(await outsider.json()).toMatchObject({ error: { code: "not_found" } });
    });
  });

  describe("attributing Attempts", () => {
    it("records the Organization at start and shows it in reads; a non-member is refused", async () => {
      const org = (await call("eve", "create_organization", { slug: "eve-team", name: "Eve's team" }))
        .organization;
      const started = await call("eve", "start_attempt", { problem: "team-work", organization: "eve-team" });
      expect(started.attempt).toMatchObject({ organization_id: org.id, user_id: users.eve!.id });
      const read = await call("eve", "get_attempt", { attempt_id: started.attempt.id });
      expect(JSON.stringify(read)).toContain(org.id);
      // By id too; and without one the Attempt is attributed to none.
      expect(
        (await call("eve", "start_attempt", { problem: problem.problemId, organization: org.id })).attempt
          .organization_id,
      ).toBe(org.id);
      expect(
        (await call("eve", "start_attempt", { problem: "team-work" })).attempt.organization_id,
      ).toBeNull();
      expect(
        await refused("dee", "start_attempt", { problem: "team-work", organization: "eve-team" }),
      ).toMatchObject({ code: "not_a_member", field: "organization" });
      expect(
        await refused("dee", "start_attempt", { problem: "team-work", organization: "no-team" }),
      ).toMatchObject({
        code: "not_found",
        field: "organization",
      });
      const [row] = await db.sql`select count(*)::int as n from attempts where user_id = ${users.dee!.id}`;
      expect(row!.n).toBe(0);
    });
  });

  describe("review rules with a real team", () => {
    it("organization_members: only current members of the named Organization claim a seat", async () => {
      const org = (
        await call("cy", "create_organization", { slug: "reviewers-guild", name: "Reviewers Guild" })
      ).organization;
      await call("cy", "invite_organization_member", { organization: "reviewers-guild", user: "dee" });
      await call("dee", "accept_organization_invitation", { organization: "reviewers-guild" });
      const review = await seedReview(services, {
        owner: users["owner-o"]!.id,
        submitter: users.eve!.id,
        slug: "guild-reviewed",
        protocol: fixtureProtocol([
          fixtureNode("guild", { eligibility: { rule: "organization_members", organization_id: org.id } }),
        ]),
        now: T0,
      });
      await openNode(services, review.processId, "guild", T0);
      const args = { review_process_id: review.processId, node_id: "guild" };
      expect(await refused("bob", "claim_review", args)).toMatchObject({ code: "not_eligible" });
      expect((await call("dee", "claim_review", args)).assignment).toMatchObject({ status: "claimed" });
      // Membership is read live: a member who left is no longer eligible for the other seat.
      await call("cy", "invite_organization_member", { organization: "reviewers-guild", user: "ada" });
      await call("ada", "accept_organization_invitation", { organization: "reviewers-guild" });
      await call("ada", "leave_organization", { organization: "reviewers-guild" });
      expect(await refused("ada", "claim_review", args)).toMatchObject({ code: "not_eligible" });
    });

    it("exclude_submitter_organization: members of the team the work is attributed to are refused", async () => {
      const org = (await call("owner-o", "create_organization", { slug: "submitters", name: "Submitters" }))
        .organization;
      await call("owner-o", "invite_organization_member", { organization: "submitters", user: "ada" });
      await call("ada", "accept_organization_invitation", { organization: "submitters" });
      const node = {
        ...fixtureNode("peers"),
        conflicts: { exclude_submitter: true, exclude_submitter_organization: true },
      };
      const review = await seedReview(services, {
        owner: users["owner-o"]!.id,
        submitter: users["owner-o"]!.id,
        slug: "conflicted",
        protocol: fixtureProtocol([node]),
        now: T0,
        organization: org.id,
      });
      await openNode(services, review.processId, "peers", T0);
      const args = { review_process_id: review.processId, node_id: "peers" };
      expect(await refused("ada", "claim_review", args)).toMatchObject({ code: "conflict_of_interest" });
      // A former member has no conflict any more.
      await call("ada", "leave_organization", { organization: "submitters" });
      expect((await call("ada", "claim_review", args)).assignment).toMatchObject({ status: "claimed" });
    });
  });

  describe("concurrency", () => {
    it("keeps an owner when both owners leave at once: exactly one leaves, the other is last_owner", async () => {
      const [first, second] = [
        await seedUser(db.sql, "twin-a", { scopes: ["read", "contribute"] }),
        await seedUser(db.sql, "twin-b", { scopes: ["read", "contribute"] }),
      ];
      const as = (user: SeededUser) => ({ principal: user.principal, baseUrl: app.url });
      await createOrganization(services, as(first!), { slug: "twins", name: "Twins" });
      await inviteMember(services, as(first!), { organization: "twins", user: "twin-b", role: "owner" });
      await acceptInvitation(services, as(second!), { organization: "twins" });
      const outcomes = await Promise.allSettled([
        leaveOrganization(services, as(first!), { organization: "twins" }),
        leaveOrganization(services, as(second!), { organization: "twins" }),
      ]);
      expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(1);
      const failed = outcomes.find((o) => o.status === "rejected") as PromiseRejectedResult;
      expect(failed.reason).toMatchObject({ code: "last_owner" });
      const owners = await db.sql`
        select m.role from memberships m join organizations o on o.id = m.organization_id where o.slug = 'twins'`;
      expect(owners.map((o) => o.role)).toEqual(["owner"]);
    });
  });

  describe("ceilings", () => {
    it("caps the Organizations one user creates at 100", async () => {
      users.prolific = await seedUser(db.sql, "prolific", { scopes: ["read", "contribute"] });
      const caller = { principal: users.prolific.principal, baseUrl: app.url };
      for (let i = 0; i < 100; i += 1) {
        await createOrganization(services, caller, { slug: `prolific-${i}`, name: `Team ${i}` });
      }
      expect(
        await refused("prolific", "create_organization", { slug: "prolific-100", name: "One more" }),
      ).toMatchObject({ code: "conflict", field: "slug", limit: 100 });
    });
  });
});
