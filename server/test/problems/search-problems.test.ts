import fc from "fast-check";
import { beforeAll, expect, it } from "vitest";
import type { Services } from "../../src/core/services/services.ts";
import type { ProblemWithAttempts } from "../../src/problems/search-problems.ts";
import { type SeededUser, seedCampaign, seedProblem, seedUser } from "../support/seed-records.ts";
import { describeWithDatabase, useTestDatabase } from "../support/test-database.ts";
import { testServices } from "../support/test-services.ts";
import { callTool, callToolAs } from "./call-tool.ts";

interface SearchResult {
  problems: ProblemWithAttempts[];
  cursor: string | null;
  order: string;
}

describeWithDatabase("search_problems", () => {
  const db = useTestDatabase();
  let services: Services;
  let author: SeededUser;
  let stranger: SeededUser;
  let admin: SeededUser;
  /** Every listed, open Problem the seed creates, by slug. */
  const listed: string[] = [];

  const search = (caller: SeededUser, args: Record<string, unknown> = {}) =>
    callToolAs<SearchResult>(services, caller, "search_problems", args);

  /** Every page of a search, following cursors, asserting no page exceeds the limit. */
  async function allPages(caller: SeededUser, args: Record<string, unknown>): Promise<string[]> {
    const slugs: string[] = [];
    let cursor: string | null | undefined;
    for (let page = 0; page < 50; page++) {
      const result = await search(caller, { ...args, ...(cursor ? { cursor } : {}) });
      expect(result.problems.length).toBeLessThanOrEqual((args.limit as number | undefined) ?? 50);
      slugs.push(...result.problems.map((p) => p.slug));
      cursor = result.cursor;
      if (cursor === null) return slugs;
    }
    throw new Error("the cursor chain did not end");
  }

  beforeAll(async () => {
    services = testServices(db.sql);
    author = await seedUser(db.sql, "search-author", { capabilities: ["trusted_author"] });
    stranger = await seedUser(db.sql, "search-stranger", { scopes: ["read"] });
    admin = await seedUser(db.sql, "search-admin", { admin: true });
    const graphs = await seedCampaign(db.sql, { owner: author.id, slug: "graphs", visibility: "listed" });
    const hidden = await seedCampaign(db.sql, {
      owner: author.id,
      slug: "hidden-campaign",
      visibility: "unlisted",
    });

    const seed = async (
      slug: string,
      options: Parameters<typeof seedProblem>[1] extends infer O ? Partial<O> : never,
    ) => {
      await seedProblem(services, { owner: author.id, slug, visibility: "listed", ...options });
    };
    // Ranking: "knapsack" in the title (weight A) outranks it in the statement only (C), whatever the priority.
    await seed("knapsack-title", { title: "Knapsack packing", summary: "Fill a bag.", priorityWeight: 0.1 });
    await seed("bag-statement", {
      title: "Fill a bag",
      summary: "Choose items.",
      priorityWeight: 0.9,
      revision: { statement: "Pack items; this is a knapsack variant." },
    });
    await seed("petersen", {
      title: "Color a graph",
      campaignId: graphs,
      revision: { statement: "Find the chromatic number of the Petersen graph." },
      priorityWeight: 0.7,
      activeAttempts: 3,
    });
    await seed("benchmark-sort", { structure: "BENCHMARK", priorityWeight: 0.6, activeAttempts: 1 });
    await seed("discovery-primes", { structure: "DISCOVERY", campaignId: graphs, priorityWeight: 0.6 });
    for (let i = 0; i < 7; i++) {
      // Ties on priority_weight: the slug decides, so paging still has a total order.
      await seed(`filler-${i}`, { priorityWeight: i < 4 ? 0.5 : 0.2, activeAttempts: i % 3 });
    }
    // A number in a title and in a statement (numbers are read through the GIN indexes, not walked).
    await seed("tiles-a", {
      title: "Tiling 2031",
      summary: "Cover a board.",
      priorityWeight: 0.3,
      revision: { statement: "Cover the board with tiles." },
    });
    await seed("tiles-b", {
      title: "Tiling again",
      summary: "Cover a board.",
      priorityWeight: 0.8,
      revision: { statement: "Tile the 2031 board." },
    });
    listed.push("knapsack-title", "bag-statement", "petersen", "benchmark-sort", "discovery-primes");
    listed.push("tiles-a", "tiles-b");
    for (let i = 0; i < 7; i++) listed.push(`filler-${i}`);

    await seed("archived-one", { archived: true });
    await seed("unlisted-one", { visibility: "unlisted", revision: { statement: "An unlisted knapsack." } });
    await seed("private-one", { visibility: "private", revision: { statement: "A private knapsack." } });
    // Listed itself, but inside an unlisted Campaign: effectively unlisted.
    await seed("in-hidden-campaign", { campaignId: hidden, revision: { statement: "Knapsack in hiding." } });
  });

  it("finds a Problem by a word of its statement alone", async () => {
    const result = await search(stranger, { query: "Petersen" });
    expect(result.problems.map((p) => p.slug)).toEqual(["petersen"]);
    expect(result.problems[0]).toMatchObject({
      campaign_slug: "graphs",
      active_attempts: 3,
      visibility: "listed",
    });
  });

  it("finds a number: title matches first, then statement matches; in every order, page by page, only matches", async () => {
    expect((await search(stranger, { query: "2031" })).problems.map((p) => p.slug)).toEqual([
      "tiles-a",
      "tiles-b",
    ]);
    expect(await allPages(stranger, { query: "2031", limit: 1 })).toEqual(["tiles-a", "tiles-b"]);
    for (const order of ["random", "least_attempted"]) {
      const found = await allPages(stranger, { query: "2031", order, limit: 1 });
      expect([...found].sort()).toEqual(["tiles-a", "tiles-b"]);
      // A broad query in these orders is filtered too, and pages without repeats.
      const knapsack = await allPages(stranger, { query: "knapsack", order, limit: 1 });
      expect([...knapsack].sort()).toEqual(["bag-statement", "knapsack-title"]);
    }
  });

  it("understands web search syntax and stems words", async () => {
    expect((await search(stranger, { query: '"chromatic number"' })).problems.map((p) => p.slug)).toEqual([
      "petersen",
    ]);
    expect((await search(stranger, { query: "knapsacks -variant" })).problems.map((p) => p.slug)).toEqual([
      "knapsack-title",
    ]);
    expect((await search(stranger, { query: "the" })).problems).toEqual([]);
  });

  it("ranks a title match above a statement match, whatever their priority", async () => {
    const result = await search(stranger, { query: "knapsack" });
    expect(result.problems.map((p) => p.slug)).toEqual(["knapsack-title", "bag-statement"]);
    expect(result.order).toBe("priority");
  });

  it("lists title and summary matches first, then statement matches, each by priority, across pages", async () => {
    const query = "knapsack OR graph OR statement";
    const expected = [
      // Tier 0: the title or summary matches, highest priority first.
      "petersen",
      "knapsack-title",
      // Tier 1: the statement alone matches, highest priority first, the slug on ties.
      "bag-statement",
      "benchmark-sort",
      "discovery-primes",
      ...["filler-0", "filler-1", "filler-2", "filler-3", "filler-4", "filler-5", "filler-6"],
    ];
    expect((await search(stranger, { query })).problems.map((p) => p.slug)).toEqual(expected);
    // Whatever the page size, the cursor chain crosses from one tier to the next without a gap.
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: expected.length + 1 }), async (limit) => {
        expect(await allPages(stranger, { query, limit })).toEqual(expected);
      }),
      { numRuns: 6 },
    );
  });

  it("pages a query with a phrase across tiers like any other (its title tier is read whole, then sorted)", async () => {
    const query = '"chromatic number" OR knapsack OR statement';
    const expected = [
      // Tier 0: the title or summary matches.
      "knapsack-title",
      // Tier 1: the statement alone matches, highest priority first, the slug on ties.
      "bag-statement",
      "petersen",
      "benchmark-sort",
      "discovery-primes",
      ...["filler-0", "filler-1", "filler-2", "filler-3", "filler-4", "filler-5", "filler-6"],
    ];
    expect((await search(stranger, { query })).problems.map((p) => p.slug)).toEqual(expected);
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: expected.length + 1 }), async (limit) => {
        expect(await allPages(stranger, { query, limit })).toEqual(expected);
      }),
      { numRuns: 6 },
    );
  });

  it("refuses a cursor whose tier is out of range", async () => {
    const first = await search(stranger, { query: "knapsack OR graph", limit: 1 });
    const decoded = JSON.parse(Buffer.from(first.cursor!, "base64url").toString("utf8"));
    for (const tier of [2, -1, 0.5, "0"]) {
      const cursor = Buffer.from(JSON.stringify({ ...decoded, k: [tier, ...decoded.k.slice(1)] })).toString(
        "base64url",
      );
      await expect(search(stranger, { query: "knapsack OR graph", limit: 1, cursor })).rejects.toMatchObject({
        code: "invalid_input",
        details: { field: "cursor" },
      });
    }
  });

  it("returns the canonical Problem with active_attempts and nothing else", async () => {
    const [problem] = (await search(stranger, { query: "Petersen" })).problems;
    expect(Object.keys(problem!).sort()).toEqual(
      [
        "id",
        "slug",
        "title",
        "summary",
        "structure",
        "priority_weight",
        "status",
        "campaign_id",
        "campaign_slug",
        "current_revision_id",
        "current_revision_number",
        "visibility",
        "created_at",
        "updated_at",
        "archived_at",
        "active_attempts",
      ].sort(),
    );
  });

  it("filters by campaign, structure, status and standalone", async () => {
    const slugs = async (args: Record<string, unknown>) =>
      (await search(stranger, args)).problems.map((p) => p.slug);
    expect(await slugs({ campaign: "graphs" })).toEqual(["petersen", "discovery-primes"]);
    expect(await slugs({ structure: "BENCHMARK" })).toEqual(["benchmark-sort"]);
    expect(await slugs({ structure: "DISCOVERY", campaign: "graphs" })).toEqual(["discovery-primes"]);
    expect(await slugs({ status: "archived" })).toEqual(["archived-one"]);
    expect(await slugs({ standalone: false })).toEqual(["petersen", "discovery-primes"]);
    const standalone = await slugs({ standalone: true, limit: 200 });
    expect(standalone).not.toContain("petersen");
    expect(standalone).toHaveLength(listed.length - 2);
  });

  it("refuses a campaign nobody may see, and campaign with standalone=true", async () => {
    await expect(search(stranger, { campaign: "no-such-campaign" })).rejects.toMatchObject({
      code: "not_found",
    });
    await expect(search(stranger, { campaign: "graphs", standalone: true })).rejects.toMatchObject({
      code: "invalid_input",
    });
  });

  it("orders by priority (highest first, slug on ties) by default", async () => {
    const result = await search(stranger, { limit: 200 });
    const weights = result.problems.map((p) => p.priority_weight);
    expect(weights).toEqual([...weights].sort((a, b) => b - a));
    expect(result.problems.slice(-4).map((p) => p.slug)).toEqual([
      "filler-4",
      "filler-5",
      "filler-6",
      "knapsack-title",
    ]);
    expect(result.cursor).toBeNull();
  });

  it("orders by least_attempted, then priority", async () => {
    const result = await search(stranger, { order: "least_attempted", limit: 200 });
    expect(result.order).toBe("least_attempted");
    const attempts = result.problems.map((p) => p.active_attempts);
    expect(attempts).toEqual([...attempts].sort((a, b) => a - b));
    expect(result.problems.at(-1)!.slug).toBe("petersen");
  });

  it.each([
    ["priority", {}],
    ["least_attempted", {}],
    ["random", {}],
    ["priority", { query: "knapsack OR graph OR statement" }],
  ])("pages through every row exactly once (order %s %j)", async (order, extra) => {
    const all = (await search(stranger, { order, limit: 200, ...extra })).problems.map((p) => p.slug);
    for (const limit of [1, 2, 5]) {
      const paged = await allPages(stranger, { order, limit, ...extra });
      expect(new Set(paged).size).toBe(paged.length);
      expect([...paged].sort()).toEqual([...all].sort());
      if (order !== "random") expect(paged).toEqual(all);
    }
    if (Object.keys(extra).length === 0) expect([...all].sort()).toEqual([...listed].sort());
  });

  it("keeps one random permutation along a cursor chain", async () => {
    const first = await search(stranger, { order: "random", limit: 4 });
    const second = await search(stranger, { order: "random", limit: 4, cursor: first.cursor });
    const again = await search(stranger, { order: "random", limit: 4, cursor: first.cursor });
    expect(again.problems.map((p) => p.slug)).toEqual(second.problems.map((p) => p.slug));
    expect(first.order).toBe("random");
  });

  it("accepts limits 1 and 200 and refuses 0, 201 and fractions", async () => {
    expect((await search(stranger, { limit: 1 })).problems).toHaveLength(1);
    expect((await search(stranger, { limit: 200 })).problems).toHaveLength(listed.length);
    for (const limit of [0, 201, 2.5]) {
      await expect(search(stranger, { limit })).rejects.toMatchObject({
        code: "invalid_input",
        details: { field: "limit" },
      });
    }
  });

  it("refuses a cursor made for other filters, and one it never made", async () => {
    const first = await search(stranger, { limit: 2 });
    await expect(
      search(stranger, { limit: 2, structure: "SOLVE", cursor: first.cursor }),
    ).rejects.toMatchObject({
      code: "invalid_input",
      details: { field: "cursor" },
    });
    await expect(search(stranger, { order: "random", cursor: first.cursor })).rejects.toMatchObject({
      code: "invalid_input",
    });
    for (const cursor of ["garbage!", "e30", Buffer.from('{"k":[1],"f":"x"}').toString("base64url")]) {
      await expect(search(stranger, { cursor })).rejects.toMatchObject({
        code: "invalid_input",
        details: { field: "cursor" },
      });
    }
  });

  it("shows unlisted and private work only to its owner, not even to administrators", async () => {
    const hiddenSlugs = ["unlisted-one", "private-one", "in-hidden-campaign"];
    for (const caller of [stranger, admin]) {
      const slugs = (await search(caller, { query: "knapsack" })).problems.map((p) => p.slug);
      expect(slugs.filter((s) => hiddenSlugs.includes(s))).toEqual([]);
    }
    const own = (await search(author, { query: "knapsack" })).problems.map((p) => p.slug);
    expect(own).toEqual(expect.arrayContaining(hiddenSlugs));
    const unlisted = (await search(author, { query: "hiding" })).problems[0];
    expect(unlisted?.visibility).toBe("unlisted");
  });

  it("reads unlisted work by id or slug, and private work only as owner or administrator", async () => {
    const unlisted = await callTool(services, stranger, "get_problem", { problem: "unlisted-one" });
    expect(unlisted.problem).toMatchObject({ slug: "unlisted-one", visibility: "unlisted" });
    const campaignChild = await callTool(services, stranger, "get_problem", {
      problem: "in-hidden-campaign",
    });
    expect(campaignChild.problem).toMatchObject({ visibility: "unlisted" });
    await expect(
      callTool(services, stranger, "get_problem", { problem: "private-one" }),
    ).rejects.toMatchObject({
      code: "not_found",
    });
    for (const caller of [author, admin]) {
      const read = await callTool(services, caller, "get_problem", { problem: "private-one" });
      expect(read.problem).toMatchObject({ visibility: "private" });
    }
  });
});
