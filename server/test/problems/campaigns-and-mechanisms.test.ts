import { checkSchema } from "@svc/schemas";
import { beforeAll, describe, expect, it } from "vitest";
import type { Campaign } from "../../src/campaigns/campaign.ts";
import type { Services } from "../../src/core/services/services.ts";
import { discoveryTools } from "../../src/edges/mcp/tools/discovery-tools.ts";
import type { PickedProblem } from "../../src/problems/pick-problems.ts";
import type { Problem } from "../../src/problems/problem.ts";
import {
  contractDocument,
  type SeededUser,
  seedCampaign,
  seedContract,
  seedImplementation,
  seedProblem,
  seedProtocol,
  seedSkillVersion,
  seedUser,
} from "../support/seed-records.ts";
import { describeWithDatabase, useTestDatabase } from "../support/test-database.ts";
import { testServices } from "../support/test-services.ts";
import { callTool, callToolAs } from "./call-tool.ts";

/** A valid review protocol document whose one review node supplies `skill` to reviewers. */
function protocolDocument(skill: string): Record<string, unknown> {
  return {
    version: "svc.review/v0.1",
    purpose: "acceptance",
    title: "One reviewer",
    subject_kind: "submission",
    nodes: [
      {
        id: "reader",
        type: "review",
        title: null,
        when: null,
        reviewers: { kind: "human", count: 1, independent: true, eligibility: { rule: "any_participant" } },
        visibility: { prior_nodes: [], stage_evidence: false, hidden: [] },
        conflicts: null,
        skills: [{ skill_version_id: skill, requirement: "recommended" }],
        rubric: {
          instructions_md: "Accept it when it holds.",
          response_schema: { type: "object", properties: { verdict: { enum: ["accept", "reject"] } } },
          rationale: "required",
          citations: { min_items: 0 },
          confidence: "optional",
        },
        inputs: null,
        op: null,
        config: null,
      },
      {
        id: "decision",
        type: "reduce",
        title: null,
        when: null,
        reviewers: null,
        visibility: null,
        conflicts: null,
        skills: null,
        rubric: null,
        inputs: ["reader"],
        op: "k_of_n",
        config: {
          field: "verdict",
          accept: { predicate: { op: "eq", value: "accept" }, k: 1 },
          reject: { predicate: { op: "eq", value: "reject" }, k: 1 },
        },
      },
    ],
    output: "decision",
    policy: { assignment_timeout_hours: 72, claim_hold_minutes: 120 },
  };
}

describe("discovery tools", () => {
  it("are read tools with read scope, each accepting working_attempt_id", () => {
    expect(discoveryTools.map((t) => t.name)).toEqual([
      "list_campaigns",
      "get_campaign",
      "search_problems",
      "get_problem",
      "get_leaderboard",
      "pick_problem",
      "get_review_protocol",
      "get_verifier_contract",
    ]);
    for (const tool of discoveryTools) {
      expect([tool.scope, tool.kind]).toEqual(["read", "read"]);
      expect(Object.keys(tool.input.shape)).toContain("working_attempt_id");
    }
  });
});

describeWithDatabase("campaigns, picks and mechanisms", () => {
  const db = useTestDatabase();
  let services: Services;
  let owner: SeededUser;
  let other: SeededUser;
  let stranger: SeededUser;
  let admin: SeededUser;

  beforeAll(async () => {
    services = testServices(db.sql);
    owner = await seedUser(db.sql, "campaign-owner", { capabilities: ["trusted_author"] });
    other = await seedUser(db.sql, "other-owner", { capabilities: ["author"] });
    stranger = await seedUser(db.sql, "campaign-stranger", { scopes: ["read"] });
    admin = await seedUser(db.sql, "campaign-admin", { admin: true, scopes: ["read"] });
    const tides = await seedCampaign(db.sql, { owner: owner.id, slug: "tides", visibility: "listed" });
    await seedCampaign(db.sql, { owner: owner.id, slug: "tides-unlisted", visibility: "unlisted" });
    await seedCampaign(db.sql, { owner: owner.id, slug: "tides-private" });
    await seedCampaign(db.sql, {
      owner: owner.id,
      slug: "tides-archived",
      visibility: "listed",
      archived: true,
    });
    await seedCampaign(db.sql, { owner: other.id, slug: "others-private" });
    for (let i = 0; i < 7; i++) {
      await seedProblem(services, {
        owner: owner.id,
        slug: `tide-${i}`,
        campaignId: tides,
        priorityWeight: [0.9, 0.9, 0.3, 0.5, 0.1, 0.7, 0.2][i],
        activeAttempts: [5, 0, 0, 0, 0, 9, 0][i],
      });
    }
    await seedProblem(services, { owner: owner.id, slug: "tide-closed", campaignId: tides, archived: true });
    await seedProblem(services, {
      owner: owner.id,
      slug: "tide-held-back",
      campaignId: tides,
      visibility: "unlisted",
    });
  });

  describe("list_campaigns", () => {
    it("lists active listed campaigns and the caller's own", async () => {
      const slugs = async (caller: SeededUser) =>
        (await callToolAs<{ campaigns: Campaign[] }>(services, caller, "list_campaigns")).campaigns.map(
          (c) => c.slug,
        );
      expect(await slugs(stranger)).toEqual(["tides"]);
      expect(await slugs(admin)).toEqual(["tides"]);
      expect((await slugs(owner)).sort()).toEqual(["tides", "tides-private", "tides-unlisted"]);
      // Newest first.
      expect(await slugs(other)).toEqual(["others-private", "tides"]);
    });

    it("gives the canonical Campaign", async () => {
      const { campaigns } = await callToolAs<{ campaigns: Campaign[] }>(services, stranger, "list_campaigns");
      expect(Object.keys(campaigns[0]!).sort()).toEqual(
        [
          "id",
          "slug",
          "title",
          "summary",
          "description_md",
          "status",
          "visibility",
          "created_at",
          "updated_at",
          "archived_at",
        ].sort(),
      );
    });
  });

  describe("get_campaign", () => {
    const getCampaign = (caller: SeededUser, args: Record<string, unknown>) =>
      callToolAs<{ campaign: Campaign; open_problems: Problem[]; open_problems_cursor: string | null }>(
        services,
        caller,
        "get_campaign",
        args,
      );

    it("pages the open problems in priority order, slug on ties", async () => {
      const slugs: string[] = [];
      let cursor: string | null | undefined;
      do {
        const page = await getCampaign(stranger, {
          campaign: "tides",
          limit: 3,
          ...(cursor ? { cursor } : {}),
        });
        expect(page.open_problems.length).toBeLessThanOrEqual(3);
        slugs.push(...page.open_problems.map((p) => p.slug));
        cursor = page.open_problems_cursor;
      } while (cursor);
      expect(slugs).toEqual(["tide-0", "tide-1", "tide-5", "tide-3", "tide-2", "tide-6", "tide-4"]);
    });

    it("reads by id or slug, unlisted by name, private only for its managers", async () => {
      const bySlug = await getCampaign(stranger, { campaign: "tides" });
      expect((await getCampaign(stranger, { campaign: bySlug.campaign.id })).campaign).toEqual(
        bySlug.campaign,
      );
      expect((await getCampaign(stranger, { campaign: "tides-unlisted" })).campaign.visibility).toBe(
        "unlisted",
      );
      await expect(getCampaign(stranger, { campaign: "tides-private" })).rejects.toMatchObject({
        code: "not_found",
      });
      expect((await getCampaign(admin, { campaign: "tides-private" })).campaign.slug).toBe("tides-private");
      await expect(getCampaign(stranger, { campaign: "no-tides" })).rejects.toMatchObject({
        code: "not_found",
      });
    });

    it("shows a problem held back by its exception to its owner only", async () => {
      const mine = await getCampaign(owner, { campaign: "tides", limit: 200 });
      expect(mine.open_problems.map((p) => p.slug)).toContain("tide-held-back");
      const theirs = await getCampaign(stranger, { campaign: "tides", limit: 200 });
      expect(theirs.open_problems.map((p) => p.slug)).not.toContain("tide-held-back");
      expect(theirs.open_problems.map((p) => p.slug)).not.toContain("tide-closed");
    });

    it("refuses limits outside 1..200 and foreign cursors", async () => {
      for (const limit of [0, 201]) {
        await expect(getCampaign(stranger, { campaign: "tides", limit })).rejects.toMatchObject({
          code: "invalid_input",
        });
      }
      const search = await callTool(services, stranger, "search_problems", { limit: 1 });
      await expect(
        getCampaign(stranger, { campaign: "tides", cursor: search.cursor as string }),
      ).rejects.toMatchObject({ code: "invalid_input" });
    });
  });

  describe("pick_problem", () => {
    it("suggests untouched important problems first, each with a plain reason and a start hint", async () => {
      const picked = await callToolAs<{ problems: PickedProblem[]; hint: string }>(
        services,
        stranger,
        "pick_problem",
        {
          campaign: "tides",
          limit: 3,
        },
      );
      expect(picked.problems.map((p) => p.slug)).toEqual(["tide-1", "tide-3", "tide-2"]);
      expect(picked.problems[0]!.reason).toBe(
        "High priority (0.9) in campaign tides and nobody is working on it yet.",
      );
      expect(picked.hint).toContain("start_attempt");
      const none = await callTool(services, stranger, "pick_problem", { structure: "BENCHMARK" });
      expect(none).toEqual({ problems: [] });
    });
  });

  describe("get_review_protocol and get_verifier_contract", () => {
    let protocolId: string;
    let contractId: string;
    let privateContractId: string;
    let reviewSkill: string;

    beforeAll(async () => {
      reviewSkill = await seedSkillVersion(services, {
        publisher: other.id,
        name: "review-guide",
        files: { "SKILL.md": "# How to review\n" },
      });
      protocolId = await seedProtocol(db.sql, other.id, "one-reader", protocolDocument(reviewSkill));
      const reviewStage = {
        key: "peer_review",
        kind: "review",
        title: "Peer review",
        description_md: "",
        evidence_schema: null,
        review_protocol_id: protocolId,
        rule_owner: "contract",
        acceptance: "The reviewer accepts.",
        external_system: null,
      };
      contractId = await seedContract(db.sql, other.id, contractDocument([], [reviewStage]));
      await seedImplementation(db.sql, {
        contractId,
        stageKey: "peer_review",
        author: other.id,
        status: "passed",
      });
      await seedImplementation(db.sql, {
        contractId,
        stageKey: "peer_review",
        author: other.id,
        status: "failed",
      });
      privateContractId = await seedContract(db.sql, other.id, contractDocument([{ key: "only_mine" }]));
      await seedProblem(services, {
        owner: other.id,
        slug: "reviewed-essay",
        visibility: "listed",
        revision: { verifierContractId: contractId },
      });
      await seedProblem(services, {
        owner: other.id,
        slug: "private-essay",
        revision: { verifierContractId: privateContractId },
      });
    });

    it("reads a protocol a readable contract uses, as the canonical record", async () => {
      const { review_protocol } = await callTool(services, stranger, "get_review_protocol", {
        review_protocol_id: protocolId,
      });
      expect(checkSchema("review-protocol", review_protocol).issues).toEqual([]);
      expect(review_protocol).toMatchObject({ id: protocolId, slug: "one-reader", yanked_at: null });
    });

    it("reads a contract a readable revision pins, with its implementations and the current one marked", async () => {
      const result = await callTool(services, stranger, "get_verifier_contract", {
        verifier_contract_id: contractId,
      });
      expect(result.verifier_contract).toMatchObject({
        id: contractId,
        publisher_user_id: other.id,
        title: "Checks the answer",
        result_kind: "pass_fail",
      });
      const implementations = result.implementations as Array<{ version_number: number; current: boolean }>;
      expect(implementations.map((i) => [i.version_number, i.current])).toEqual([
        [1, true],
        [2, false],
      ]);
    });

    it("hides mechanisms only private work uses, except from their publisher and administrators", async () => {
      await expect(
        callTool(services, stranger, "get_verifier_contract", { verifier_contract_id: privateContractId }),
      ).rejects.toMatchObject({ code: "not_found" });
      for (const caller of [other, admin]) {
        const read = await callTool(services, caller, "get_verifier_contract", {
          verifier_contract_id: privateContractId,
        });
        expect((read.verifier_contract as { id: string }).id).toBe(privateContractId);
      }
      for (const id of ["vct_00000000000000000000", "not-an-id"]) {
        await expect(
          callTool(services, stranger, "get_verifier_contract", { verifier_contract_id: id }),
        ).rejects.toMatchObject({ code: "not_found" });
      }
      await expect(
        callTool(services, stranger, "get_review_protocol", {
          review_protocol_id: "rpt_00000000000000000000",
        }),
      ).rejects.toMatchObject({ code: "not_found" });
    });

    it("makes a protocol's skills readable through the protocol", async () => {
      const { discoveryResources } = await import("../../src/edges/mcp/tools/discovery-tools.ts");
      const template = discoveryResources.find((t) => t.uriTemplate.startsWith("svc://skill-versions/"))!;
      const [content] = await template.read(
        { services, principal: stranger.principal, baseUrl: "http://svc.test" },
        `svc://skill-versions/${reviewSkill}/SKILL.md`,
        { skill_version_id: reviewSkill, path: "SKILL.md" },
      );
      expect(content!.text).toBe("# How to review\n");
      // Once the only problem using it goes private, the protocol and its skill go with it.
      await db.sql`update problems set visibility = 'private' where slug = 'reviewed-essay'`;
      await expect(
        callTool(services, stranger, "get_review_protocol", { review_protocol_id: protocolId }),
      ).rejects.toMatchObject({ code: "not_found" });
      await expect(
        template.read(
          { services, principal: stranger.principal, baseUrl: "http://svc.test" },
          `svc://skill-versions/${reviewSkill}/SKILL.md`,
          { skill_version_id: reviewSkill, path: "SKILL.md" },
        ),
      ).rejects.toMatchObject({ code: "not_found" });
    });
  });
});
