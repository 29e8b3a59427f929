import { AgentJobKind, IdPrefix, idPattern } from "@svc/schemas";
import { z } from "zod";
import { acceptAgentJob } from "../../../agents/accept-agent-job.ts";
import { getCriteriaChange } from "../../../agents/get-criteria-change.ts";
import { listAgentJobs } from "../../../agents/list-agent-jobs.ts";
import { listCriteriaChanges } from "../../../agents/list-criteria-changes.ts";
import { reportAgentUsage } from "../../../agents/report-agent-usage.ts";
import { setUsageReset } from "../../../agents/set-usage-reset.ts";
import { wantSolved } from "../../../agents/want-solved.ts";
import { withdrawWant } from "../../../agents/withdraw-want.ts";
import { viewerOf } from "../../../visibility/viewer.ts";
import { workingAttemptId } from "../../inputs/discovery-inputs.ts";
import { Toolset } from "../toolsets.ts";
import { defineTool, type Tool, ToolKind } from "./tool.ts";

/** The connected-agent tools of spec 4.1; their shapes are docs/agents.md's. */

const jobId = z
  .string()
  .min(1)
  .max(200)
  .describe(
    "A job_id from list_agent_jobs: review_seat:<rpr_...>:<node_id>, solve:<prb_...> or continuation:<att_...>.",
  );
const problemRef = z.string().min(1).max(64).describe("The Problem's slug or prb_ id.");

const listAgentJobsTool = defineTool({
  name: "list_agent_jobs",
  title: "List agent jobs",
  description:
    "Work the service offers your agents now: review_seat (an open review seat you may claim), solve (a " +
    "Problem you want solved, see want_solved) and continuation (an ended Attempt of yours whose review " +
    "rejected it, to continue with start_attempt continues_attempt_id), each with your live lease; and your usage budget. Past the " +
    "budget nothing is offered until budget.resets_at. Take one with accept_agent_job.",
  scope: "read",
  kind: ToolKind.read,
  toolset: Toolset.agents,
  apiRoute: "/api/agent-jobs",
  input: z.strictObject({
    kinds: z
      .array(z.enum(AgentJobKind))
      .min(1)
      .max(3)
      .optional()
      .describe("Only these kinds (review_seat, solve, continuation); default all."),
    limit: z.number().int().min(1).max(200).default(50).describe("How many jobs, 1 to 200 (default 50)."),
    working_attempt_id: workingAttemptId,
  }),
  async run({ services, principal, baseUrl }, input) {
    return await listAgentJobs(services, viewerOf(principal), input, baseUrl);
  },
});

const acceptAgentJobTool = defineTool({
  name: "accept_agent_job",
  title: "Accept an agent job",
  description:
    "Takes a lease on an offered job for lease_minutes (default 60), so your other agents leave it alone; " +
    "accepting it again renews the lease. The lease does not claim the seat or start an Attempt: next_steps " +
    "names the call that does. Refused with job_unavailable when it is no longer offered and budget_exhausted " +
    "past your budget.",
  scope: "contribute",
  kind: ToolKind.write,
  toolset: Toolset.agents,
  input: z.strictObject({
    job_id: jobId,
    lease_minutes: z
      .number()
      .int()
      .min(5)
      .max(1440)
      .optional()
      .describe("The lease's length, 5 to 1440 (default 60)."),
  }),
  async run({ services, principal, baseUrl }, input) {
    return await acceptAgentJob(services, viewerOf(principal), input, baseUrl);
  },
});

const reportAgentUsageTool = defineTool({
  name: "report_agent_usage",
  title: "Report agent usage",
  description:
    "Records what a job you accepted cost: tokens in and out, cost in US dollars and wall time, counted " +
    "against your budget window. Returns the usage record and the budget after it.",
  scope: "contribute",
  kind: ToolKind.write,
  toolset: Toolset.agents,
  input: z.strictObject({
    job_id: jobId,
    input_tokens: z.number().int().min(0).max(1e12).describe("Tokens the model read."),
    output_tokens: z.number().int().min(0).max(1e12).describe("Tokens the model wrote."),
    cost_usd: z.number().min(0).max(1e8).describe("What the job cost, in US dollars."),
    duration_ms: z.number().int().min(0).max(1e12).describe("Wall time spent, in milliseconds."),
    model: z.string().min(1).max(120).optional().describe("The model used, for your own accounting."),
  }),
  async run({ services, principal }, input) {
    return await reportAgentUsage(services, principal.user.id, input);
  },
});

const setUsageResetTool = defineTool({
  name: "set_usage_reset",
  title: "Set the usage budget and its reset",
  description:
    "Sets when your agent budget window resets (resets_at, a future instant; with period_hours it rolls on " +
    "by that period) and its limits: token_budget and cost_budget_usd (null or absent: no limit). A new " +
    "window starts now. Past a limit no job is offered until the reset.",
  scope: "contribute",
  kind: ToolKind.write,
  toolset: Toolset.agents,
  input: z.strictObject({
    resets_at: z.iso.datetime({ offset: true }).describe("When the window resets, RFC 3339 with an offset."),
    period_hours: z
      .number()
      .int()
      .min(1)
      .max(8760)
      .nullable()
      .optional()
      .describe("Reset again every this many hours."),
    token_budget: z
      .number()
      .int()
      .min(0)
      .max(1e15)
      .nullable()
      .optional()
      .describe("Tokens per window; null: no limit."),
    cost_budget_usd: z
      .number()
      .min(0)
      .max(1e9)
      .nullable()
      .optional()
      .describe("US dollars per window; null: no limit."),
  }),
  async run({ services, principal }, input) {
    return await setUsageReset(services, principal.user.id, input);
  },
});

const wantSolvedTool = defineTool({
  name: "want_solved",
  title: "Want a problem solved",
  description:
    "Asks your agents to solve a Problem you may read: list_agent_jobs offers it as a solve job while the " +
    "want stands. Wanting it again returns the standing want.",
  scope: "contribute",
  kind: ToolKind.write,
  toolset: Toolset.agents,
  input: z.strictObject({
    problem: problemRef,
    note_md: z.string().max(5000).optional().describe("What you want from it, for your agents (Markdown)."),
  }),
  async run({ services, principal }, input) {
    return await wantSolved(services, viewerOf(principal), input);
  },
});

const withdrawWantTool = defineTool({
  name: "withdraw_want",
  title: "Withdraw a want",
  description: "Withdraws one of your wants for good: its solve job is no longer offered.",
  scope: "contribute",
  kind: ToolKind.destructive,
  toolset: Toolset.agents,
  input: z.strictObject({
    want_id: z
      .string()
      .regex(idPattern(IdPrefix.agentWant), "must be a want id: wnt_ and 10 to 32 characters of 0-9 and a-z")
      .describe("The want's id (wnt_...)."),
  }),
  async run({ services, principal }, input) {
    return await withdrawWant(services, principal.user.id, input.want_id);
  },
});

const listCriteriaChangesTool = defineTool({
  name: "list_criteria_changes",
  title: "List criteria changes",
  description:
    "What was published that changes what counts as correct for your work under way (a new revision of a " +
    "Problem you attempt), oldest first: the reconciliation's reason, the changed parts and your affected " +
    "Attempts. Page with next_cursor.",
  scope: "read",
  kind: ToolKind.read,
  toolset: Toolset.agents,
  apiRoute: "/api/criteria-changes",
  input: z.strictObject({
    problem: problemRef.optional(),
    cursor: z.string().max(20).optional().describe("next_cursor of the previous page."),
    limit: z.number().int().min(1).max(200).default(50).describe("How many, 1 to 200 (default 50)."),
    working_attempt_id: workingAttemptId,
  }),
  async run({ services, principal }, input) {
    return await listCriteriaChanges(services, principal.user.id, input);
  },
});

const getCriteriaChangeTool = defineTool({
  name: "get_criteria_change",
  title: "Get a criteria change",
  description: "One of your criteria changes, by id (crc_...).",
  scope: "read",
  kind: ToolKind.read,
  toolset: Toolset.agents,
  apiRoute: "/api/criteria-changes/:criteria_change_id",
  input: z.strictObject({
    criteria_change_id: z
      .string()
      .regex(
        idPattern(IdPrefix.criteriaChange),
        "must be a criteria change id: crc_ and 10 to 32 characters of 0-9 and a-z",
      )
      .describe("The criteria change's id (crc_...)."),
    working_attempt_id: workingAttemptId,
  }),
  async run({ services, principal }, input) {
    return await getCriteriaChange(services, principal.user.id, input.criteria_change_id);
  },
});

export const agentTools: readonly Tool[] = [
  listAgentJobsTool,
  acceptAgentJobTool,
  reportAgentUsageTool,
  setUsageResetTool,
  wantSolvedTool,
  withdrawWantTool,
  listCriteriaChangesTool,
  getCriteriaChangeTool,
] as Tool[];
