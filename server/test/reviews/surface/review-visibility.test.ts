import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Services } from "../../../src/core/services/services.ts";
import { resourceTemplates, tools } from "../../../src/edges/mcp/tools/tools.ts";
import { clientLines, envelopeOf, type TestClient } from "../../edges/mcp/support/mcp-clients.ts";
import { type RunningApp, startApp } from "../../edges/mcp/support/start-app.ts";
import { type SeededUser, seedCampaign, seedUser } from "../../support/seed-records.ts";
import { describeWithDatabase, useTestDatabase } from "../../support/test-database.ts";
import { testServices } from "../../support/test-services.ts";
import {
  fixtureNode,
  fixtureProtocol,
  insertAssignment,
  openNode,
  type SeededReview,
  seedReview,
} from "./support/review-fixture.ts";

const T0 = new Date("2026-03-02T10:00:00Z");

/** How visible the Problem under review is. */
const EXPOSURES = ["private", "unlisted", "listed", "listed in a private campaign"] as const;
type Exposure = (typeof EXPOSURES)[number];

/**
 * Who asks: the Problem's owner, an administrator, an eligible participant with no seat, a
 * reviewer holding a live claim, one whose judgment is in, and the submitter of the subject.
 */
const ROLES = ["owner", "administrator", "stranger", "seated", "judged", "submitter"] as const;
type Role = (typeof ROLES)[number];

/** The one visibility rule (canReadWork): owners and administrators always, others unless private. */
function mayRead(role: Role, exposure: Exposure): boolean {
  if (role === "owner" || role === "administrator") return true;
  return exposure === "unlisted" || exposure === "listed";
}

/** What one world holds: a process over a Submission to a Problem of the given exposure. */
interface World {
  exposure: Exposure;
  review: SeededReview;
  seatedAssignment: string;
  judgedAssignment: string;
}

/** What a door's answer may name because the caller named it in the request. */
type Echo = "process" | "artifact" | "assignment" | "slug";

interface Door {
  name: string;
  echoes: Echo[];
  read(c: DoorContext): Promise<string>;
}

interface DoorContext {
  world: World;
  user: SeededUser;
  tool(name: string, args: Record<string, unknown>): Promise<string>;
  resource(uri: string): Promise<string>;
  page(path: string, accept: string): Promise<string>;
}

const node = (w: World) => ({ review_process_id: w.review.processId, node_id: "readers" });

/** Every review door: each tool, resource and page that shows seats, cases, bundles or assignments. */
const DOORS: Door[] = [
  { name: "pick_review", echoes: [], read: (c) => c.tool("pick_review", {}) },
  {
    name: "pick_review by problem",
    echoes: ["slug"],
    read: (c) => c.tool("pick_review", { problem: c.world.review.problemSlug }),
  },
  { name: "list_agent_jobs", echoes: [], read: (c) => c.tool("list_agent_jobs", {}) },
  { name: "get_review_case", echoes: ["process"], read: (c) => c.tool("get_review_case", node(c.world)) },
  { name: "claim_review", echoes: ["process"], read: (c) => c.tool("claim_review", node(c.world)) },
  {
    name: "get_review_process",
    echoes: ["process"],
    read: (c) => c.tool("get_review_process", { review_process_id: c.world.review.processId }),
  },
  { name: "list_my_review_assignments", echoes: [], read: (c) => c.tool("list_my_review_assignments", {}) },
  {
    name: "get_review_assignment (a live claim)",
    echoes: ["assignment"],
    read: (c) => c.tool("get_review_assignment", { assignment_id: c.world.seatedAssignment }),
  },
  {
    name: "get_review_assignment (a submitted judgment)",
    echoes: ["assignment"],
    read: (c) => c.tool("get_review_assignment", { assignment_id: c.world.judgedAssignment }),
  },
  {
    // An empty response fails the rubric: the holder is told why, nobody else learns anything.
    name: "submit_review_response",
    echoes: ["assignment"],
    read: (c) => c.tool("submit_review_response", { assignment_id: c.world.seatedAssignment, response: {} }),
  },
  {
    name: "decline_review_assignment",
    echoes: ["assignment"],
    read: (c) => c.tool("decline_review_assignment", { assignment_id: c.world.seatedAssignment }),
  },
  {
    name: "svc://review-processes/{id}",
    echoes: ["process"],
    read: (c) => c.resource(`svc://review-processes/${c.world.review.processId}`),
  },
  {
    name: "svc://artifacts/{id}",
    echoes: ["artifact"],
    read: (c) => c.resource(`svc://artifacts/${c.world.review.artifactId}`),
  },
  { name: "GET /reviews", echoes: [], read: (c) => c.page("/reviews", "text/html") },
  { name: "GET /reviews (JSON)", echoes: [], read: (c) => c.page("/reviews", "application/json") },
  { name: "GET /reviews/mine", echoes: [], read: (c) => c.page("/reviews/mine", "text/html") },
  {
    name: "GET /reviews/{process}/nodes/{node}",
    echoes: ["process"],
    read: (c) => c.page(`/reviews/${c.world.review.processId}/nodes/readers`, "text/html"),
  },
  {
    name: "GET /review-processes/{id}",
    echoes: ["process"],
    read: (c) => c.page(`/review-processes/${c.world.review.processId}`, "application/json"),
  },
  {
    name: "GET /review-assignments/{id}",
    echoes: ["assignment"],
    read: (c) => c.page(`/review-assignments/${c.world.seatedAssignment}`, "text/html"),
  },
];

/**
 * Private work leaks through no review door: for every door, every visibility of the Problem
 * under review and every role of the caller, a caller who may not read the Problem finds nothing
 * of it (its id, slug, title, statement, the process, the assignments, the artifact's text),
 * whatever the door; the property test draws random triples and also checks the other way: a
 * caller who may read it and is not the submitter reads the case with the artifact in it.
 */
describeWithDatabase("no review door shows work the caller cannot read", () => {
  const db = useTestDatabase();
  let services: Services;
  let app: RunningApp;
  const users = {} as Record<Role, SeededUser>;
  const worlds = new Map<Exposure, World>();
  const clients = new Map<string, TestClient>();

  beforeAll(async () => {
    services = testServices(db.sql, { clock: () => T0 });
    app = await startApp(services);
    for (const role of ROLES) {
      users[role] = await seedUser(db.sql, `vis-${role}`, {
        admin: role === "administrator",
        scopes: ["read", "contribute"],
      });
    }
    const privateCampaign = await seedCampaign(db.sql, {
      owner: users.owner.id,
      slug: "vis-hidden-campaign",
    });
    for (const [index, exposure] of EXPOSURES.entries()) {
      const review = await seedReview(services, {
        owner: users.owner.id,
        submitter: users.submitter.id,
        slug: `vis-essay-${index}`,
        protocol: fixtureProtocol([
          fixtureNode("readers", { count: 6, instructions: `Judge essay ${index}.` }),
        ]),
        now: T0,
        visibility: exposure === "listed in a private campaign" ? "listed" : exposure,
        ...(exposure === "listed in a private campaign" && { campaignId: privateCampaign }),
      });
      await openNode(services, review.processId, "readers", T0);
      // Seats taken while the work was readable (as if it turned private since).
      const seatedAssignment = await insertAssignment(services, {
        processId: review.processId,
        nodeId: "readers",
        userId: users.seated.id,
        now: T0,
      });
      const judgedAssignment = await insertAssignment(services, {
        processId: review.processId,
        nodeId: "readers",
        userId: users.judged.id,
        now: T0,
        verdict: "accept",
      });
      worlds.set(exposure, { exposure, review, seatedAssignment, judgedAssignment });
    }
  }, 60_000);

  afterAll(async () => {
    for (const client of clients.values()) await client.close();
    await app?.close();
  });

  async function clientOf(user: SeededUser): Promise<TestClient> {
    let client = clients.get(user.id);
    if (!client) {
      client = await clientLines[0].connect(app.url, user.token);
      clients.set(user.id, client);
    }
    return client;
  }

  function contextOf(world: World, user: SeededUser): DoorContext {
    return {
      world,
      user,
      tool: async (name, args) =>
        JSON.stringify(envelopeOf(await (await clientOf(user)).callTool(name, args))),
      resource: async (uri) => {
        try {
          return JSON.stringify(await (await clientOf(user)).readResource(uri));
        } catch (error) {
          return String(error instanceof Error ? error.message : error);
        }
      },
      page: async (path, accept) => {
        const response = await fetch(`${app.url}${path}`, {
          headers: { authorization: `Bearer ${user.token}`, accept },
        });
        return `${response.status} ${await response.text()}`;
      },
    };
  }

  /** Everything of the world a caller who may not read it must not find, less what they named. */
  function secretsOf(world: World, echoes: Echo[]): string[] {
    const { review } = world;
    return [
      review.problemId,
      review.artifactText,
      `Statement of ${review.problemSlug}`,
      `Problem ${review.problemSlug}`,
      ...(echoes.includes("slug") ? [] : [review.problemSlug]),
      ...(echoes.includes("process") ? [] : [review.processId]),
      ...(echoes.includes("artifact") ? [] : [review.artifactId]),
      ...(echoes.includes("assignment") ? [] : [world.seatedAssignment, world.judgedAssignment]),
    ];
  }

  async function expectNothingOf(world: World, role: Role, door: Door): Promise<void> {
    const text = await door.read(contextOf(world, users[role]));
    for (const secret of secretsOf(world, door.echoes)) {
      expect(text, `${door.name} as ${role} on ${world.exposure} work names ${secret}`).not.toContain(secret);
    }
  }

  it("has a door for every review tool and review resource the registry holds", () => {
    const doors = new Set(DOORS.map((door) => door.name.split(" ")[0]));
    const reviewTools = tools
      .map((t) => t.name)
      .filter((name) => /review/.test(name) && !/protocol|publication/.test(name));
    for (const name of reviewTools) expect(doors, name).toContain(name);
    for (const template of resourceTemplates.filter((t) => /review|artifact/.test(t.uriTemplate))) {
      expect(doors, template.uriTemplate).toContain(
        template.uriTemplate.replace("{review_process_id}", "{id}").replace("{artifact_id}", "{id}"),
      );
    }
  });

  it("the submitter's private-work case is real: its owner reads the artifact through the case", async () => {
    for (const world of worlds.values()) {
      const text = await contextOf(world, users.owner).tool("get_review_case", node(world));
      expect(text).toContain(world.review.artifactText);
    }
  });

  for (const exposure of EXPOSURES) {
    for (const role of ROLES) {
      if (mayRead(role, exposure)) continue;
      describe(`a ${role} on ${exposure} work`, () => {
        for (const door of DOORS) {
          it(`finds nothing of it through ${door.name}`, async () => {
            await expectNothingOf(worlds.get(exposure)!, role, door);
          });
        }
      });
    }
  }

  it("surfaces seats unasked only on listed work; unlisted work's seats are found by naming it", async () => {
    const stranger = (world: Exposure, args: Record<string, unknown> = {}) =>
      contextOf(worlds.get(world)!, users.stranger).tool("pick_review", args);
    const listed = worlds.get("listed")!.review;
    const unlisted = worlds.get("unlisted")!.review;
    expect(await stranger("listed")).toContain(listed.processId);
    expect(await stranger("listed")).not.toContain(unlisted.processId);
    expect(await stranger("unlisted", { problem: unlisted.problemSlug })).toContain(unlisted.processId);
  });

  it("ends a live claim when its reviewer loses access: the seat reopens and the claim reads and writes nothing", async () => {
    const review = await seedReview(services, {
      owner: users.owner.id,
      submitter: users.submitter.id,
      slug: "vis-turned-private",
      protocol: fixtureProtocol([
        fixtureNode("readers", { count: 2, instructions: "Judge the turned essay." }),
      ]),
      now: T0,
      visibility: "listed",
    });
    await openNode(services, review.processId, "readers", T0);
    const asSeated = contextOf(
      { exposure: "listed", review, seatedAssignment: "", judgedAssignment: "" },
      users.seated,
    );
    const claimed = JSON.parse(
      await asSeated.tool("claim_review", { review_process_id: review.processId, node_id: "readers" }),
    );
    const assignmentId = claimed.assignment.id as string;
    const asOwner = contextOf(
      { exposure: "listed", review, seatedAssignment: "", judgedAssignment: "" },
      users.owner,
    );
    const seats = async () =>
      JSON.parse(
        await asOwner.tool("get_review_process", { review_process_id: review.processId }),
      ).review_process.nodes.find((n: { id: string }) => n.id === "readers");
    expect(await seats()).toMatchObject({ open_seats: 1, claimed: 1 });

    const management = JSON.parse(
      await asOwner.tool("get_work_management", { work: { problem: review.problemSlug } }),
    );
    const turned = JSON.parse(
      await asOwner.tool("set_work_visibility", {
        work: { problem: review.problemSlug },
        visibility: "private",
        expected_snapshot: management.snapshot,
      }),
    );
    expect(turned).toMatchObject({ changed: true });
    // The claim ended with the change: its seat is open again for someone who may read the work.
    expect(await seats()).toMatchObject({ open_seats: 2, claimed: 0 });
    const [row] = await db.sql<
      { status: string }[]
    >`select status from review_assignments where id = ${assignmentId}`;
    expect(row!.status).toBe("lapsed");
    for (const [name, args] of [
      ["get_review_assignment", { assignment_id: assignmentId }],
      ["decline_review_assignment", { assignment_id: assignmentId }],
      [
        "submit_review_response",
        { assignment_id: assignmentId, response: { verdict: "accept" }, rationale_md: "Fine." },
      ],
      ["get_review_case", { review_process_id: review.processId, node_id: "readers" }],
      ["claim_review", { review_process_id: review.processId, node_id: "readers" }],
    ] as const) {
      const answer = JSON.parse(await asSeated.tool(name, args));
      expect(answer, name).toMatchObject({ error: { code: "not_found" } });
      expect(JSON.stringify(answer), name).not.toContain(review.artifactText);
    }
  });

  it("holds for random visibility, role and door triples, both ways", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...EXPOSURES),
        fc.constantFrom(...ROLES),
        fc.constantFrom(...DOORS),
        async (exposure, role, door) => {
          const world = worlds.get(exposure)!;
          if (!mayRead(role, exposure)) {
            await expectNothingOf(world, role, door);
            return;
          }
          // A reader who is not the submitter reads the case, and the artifact in it.
          if (role !== "submitter") {
            const text = await contextOf(world, users[role]).tool("get_review_case", node(world));
            expect(text, `${role} on ${exposure} work`).toContain(world.review.artifactText);
          }
        },
      ),
      { numRuns: 60 },
    );
  }, 120_000);
});
