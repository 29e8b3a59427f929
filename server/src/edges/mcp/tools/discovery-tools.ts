import { z } from "zod";
import { countActiveAttempts } from "../../../attempts/attempt-hints.ts";
import { listCampaigns } from "../../../campaigns/list-campaigns.ts";
import { getCampaign } from "../../../discovery/get-campaign.ts";
import { getProblem } from "../../../discovery/get-problem.ts";
import { getLeaderboard } from "../../../leaderboards/get-leaderboard.ts";
import { pickProblems } from "../../../problems/pick-problems.ts";
import { searchProblems } from "../../../problems/search-problems.ts";
import { getReviewProtocol } from "../../../review-protocols/get-review-protocol.ts";
import { getVerifierContract } from "../../../verifier-contracts/get-verifier-contract.ts";
import { viewerOf } from "../../../visibility/viewer.ts";
import {
  getCampaignResult,
  leaderboardResult,
  listCampaignsResult,
  pickProblemResult,
  problemEnvelope,
  searchProblemsResult,
} from "../../http/api-responses.ts";
import {
  campaignFilter,
  getLeaderboardInput,
  getProblemInput,
  pageCursor,
  pageLimit,
  searchProblemsInput,
  structureField,
  workingAttemptId,
} from "../../inputs/discovery-inputs.ts";
import { authoringSkillResources } from "../resources/authoring-skill-resources.ts";
import { checkerFileResource } from "../resources/checker-file-resource.ts";
import { referenceResource } from "../resources/reference-resource.ts";
import type { ResourceTemplate } from "../resources/resource-template.ts";
import { skillVersionResource } from "../resources/skill-version-resource.ts";
import { Toolset } from "../toolsets.ts";
import { defineTool, type Tool, ToolKind } from "./tool.ts";

const listCampaignsTool = defineTool({
  name: "list_campaigns",
  title: "List campaigns",
  description: "Active listed Campaigns, and your own whatever their visibility, newest first.",
  scope: "read",
  kind: ToolKind.read,
  toolset: Toolset.campaigns,
  apiRoute: "/api/campaigns",
  output: listCampaignsResult,
  input: z.strictObject({ working_attempt_id: workingAttemptId }),
  async run({ services, principal }) {
    return { ...(await listCampaigns(services.sql, viewerOf(principal))) };
  },
});

const getCampaignTool = defineTool({
  name: "get_campaign",
  title: "Get a campaign",
  description:
    "A Campaign by slug or id and a page of its open Problems in priority order; pass open_problems_cursor " +
    "back as cursor for the next page.",
  scope: "read",
  kind: ToolKind.read,
  toolset: Toolset.campaigns,
  apiRoute: "/api/campaigns/:campaign",
  output: getCampaignResult,
  input: z.strictObject({
    campaign: z.string().min(1).max(64).describe("The Campaign's slug or cmp_ id."),
    limit: pageLimit,
    cursor: pageCursor,
    working_attempt_id: workingAttemptId,
  }),
  async run({ services, principal }, input) {
    const viewer = viewerOf(principal);
    return { ...(await getCampaign(services.sql, viewer, input)) };
  },
});

const searchProblemsTool = defineTool({
  name: "search_problems",
  title: "Search problems",
  description:
    "Full-text search over listed Problems (and your own): title, summary and statement. Filters: campaign, " +
    "structure, status (default open), standalone. Orders: priority, random, least_attempted. Returns " +
    "{problems, cursor, order}; pass cursor back with the same filters for the next page.",
  scope: "read",
  kind: ToolKind.read,
  toolset: Toolset.discovery,
  apiRoute: "/api/problems",
  apiRouteByHand: true,
  output: searchProblemsResult,
  input: searchProblemsInput,
  async run({ services, principal }, input) {
    const viewer = viewerOf(principal);
    return { ...(await searchProblems(services.sql, viewer, input)) };
  },
});

const getProblemTool = defineTool({
  name: "get_problem",
  title: "Get a problem",
  description:
    "A Problem by id or slug with one revision (current unless `revision` is given), its skills and reference " +
    "inputs with resource URIs and signed 15-minute download links.",
  scope: "read",
  kind: ToolKind.read,
  toolset: Toolset.discovery,
  apiRoute: "/api/problems/:problem",
  apiRouteByHand: true,
  output: problemEnvelope,
  input: getProblemInput,
  async run(context, input) {
    const viewer = viewerOf(context.principal);
    return { ...(await getProblem(context.services, context, viewer, input)) };
  },
});

const pickProblemTool = defineTool({
  name: "pick_problem",
  title: "Pick a problem",
  description:
    "Suggests open Problems to start now, best first (priority weighed against how many are already " +
    "working on each), each with a plain-text reason. Advisory.",
  scope: "read",
  kind: ToolKind.read,
  toolset: Toolset.discovery,
  apiRoute: "/api/problem-picks",
  output: pickProblemResult,
  input: z.strictObject({
    campaign: campaignFilter,
    structure: structureField.optional().describe("Only Problems of this structure."),
    limit: z.number().int().min(1).max(20).default(5).describe("How many suggestions, 1 to 20 (default 5)."),
    working_attempt_id: workingAttemptId,
  }),
  async run({ services, principal }, input) {
    const picked = await pickProblems(services.sql, viewerOf(principal), input);
    if (picked.problems.length === 0) return { ...picked };
    // Spec 4.1: the start hint is for callers with no active Attempt anywhere.
    if ((await countActiveAttempts(services.sql, principal.user.id)) > 0) return { ...picked };
    return {
      ...picked,
      hint: 'You have no active Attempt: call start_attempt with {"problem": "<id>"} on the one you choose.',
    };
  },
});

const getReviewProtocolTool = defineTool({
  name: "get_review_protocol",
  title: "Get a review protocol",
  description: "A ReviewProtocol by rpt_ id: its document, content hash and yank state.",
  scope: "read",
  kind: ToolKind.read,
  toolset: Toolset.review,
  apiRoute: "/api/review-protocols/:review_protocol_id",
  input: z.strictObject({
    review_protocol_id: z.string().min(1).max(64).describe("The protocol's rpt_ id."),
    working_attempt_id: workingAttemptId,
  }),
  async run({ services, principal }, input) {
    const viewer = viewerOf(principal);
    return { ...(await getReviewProtocol(services.sql, viewer, input.review_protocol_id)) };
  },
});

const getVerifierContractTool = defineTool({
  name: "get_verifier_contract",
  title: "Get a verifier contract",
  description:
    "A VerifierContract by vct_ id (stages, reference slots, submission requirements, fixtures) and a summary " +
    "of its implementations, with each stage's current one marked.",
  scope: "read",
  kind: ToolKind.read,
  toolset: Toolset.workbench,
  apiRoute: "/api/verifier-contracts/:verifier_contract_id",
  input: z.strictObject({
    verifier_contract_id: z.string().min(1).max(64).describe("The contract's vct_ id."),
    working_attempt_id: workingAttemptId,
  }),
  async run({ services, principal }, input) {
    const viewer = viewerOf(principal);
    return { ...(await getVerifierContract(services.sql, viewer, input.verifier_contract_id)) };
  },
});

/** The discovery and read tools of spec 4.1. */
const getLeaderboardTool = defineTool({
  name: "get_leaderboard",
  title: "Get a leaderboard",
  description:
    "The leaderboard of a scored Problem (BENCHMARK, or a Contract whose result is a score): each participant's " +
    "best verified, unrevoked score on one revision (default the current one), ranked by the score's direction, " +
    "with the metric and the baseline. On sealed work `withheld` says why and until when no entry is shown.",
  scope: "read",
  kind: ToolKind.read,
  toolset: Toolset.campaigns,
  apiRoute: "/api/problems/:problem/leaderboard",
  apiRouteByHand: true,
  output: leaderboardResult,
  input: getLeaderboardInput,
  async run({ services, principal }, input) {
    return {
      ...(await getLeaderboard(services.sql, { viewer: viewerOf(principal), now: services.clock() }, input)),
    };
  },
});

export const discoveryTools: Tool[] = [
  listCampaignsTool,
  getCampaignTool,
  searchProblemsTool,
  getProblemTool,
  getLeaderboardTool,
  pickProblemTool,
  getReviewProtocolTool,
  getVerifierContractTool,
];

/** The `svc://` resources of published work. */
export const discoveryResources: ResourceTemplate[] = [
  skillVersionResource,
  referenceResource,
  checkerFileResource,
  ...authoringSkillResources,
];
