import { AttemptOutcome, AttemptStatus } from "@svc/schemas";
import { z } from "zod";
import { listAttempts } from "../../../attempts/list-attempts.ts";
import { listMyAttempts } from "../../../attempts/list-my-attempts.ts";
import { endAttempt } from "../../../solving/end-attempt.ts";
import { getAttempt } from "../../../solving/get-attempt.ts";
import { startAttempt } from "../../../solving/start-attempt.ts";
import {
  endAttemptResult,
  getAttemptResult,
  listAttemptsResult,
  startAttemptResult,
} from "../../http/api-responses.ts";
import { attemptIdField } from "../../inputs/attempt-fields.ts";
import { pageCursor, pageLimit, revisionNumber } from "../../inputs/discovery-inputs.ts";
import { noteBodyField } from "../../inputs/note-body.ts";
import { organizationField } from "../../inputs/organization-fields.ts";
import { Toolset } from "../toolsets.ts";
import { defineTool, type Tool, ToolKind } from "./tool.ts";

const problemField = z.string().min(1).max(64);

const startAttemptTool = defineTool({
  name: "start_attempt",
  title: "Start an attempt",
  description:
    "Starts your Attempt on a Problem (id or slug), pinned to a revision (default current). With continues_attempt_id it " +
    "continues your ended Attempt and returns what it left in `continues` (summary, submissions with verification results " +
    "and evidence, artifacts to reuse). Returns {attempt, continues, next_steps, skill_resources, reference_resources, " +
    "waiting_for_runs (how to wait for a verification), other_active_attempts (yours on this Problem, if any)}; the " +
    "resource URIs carry your Attempt id. " +
    "With organization the Attempt is attributed to a team you belong to (whoami lists yours).",
  scope: "contribute",
  kind: ToolKind.write,
  toolset: Toolset.solving,
  output: startAttemptResult,
  input: z.strictObject({
    problem: problemField.describe("The Problem's slug or prb_ id."),
    revision: revisionNumber.optional().describe("A revision number; default the current one."),
    continues_attempt_id: attemptIdField("Your ended Attempt on the same Problem to continue.").optional(),
    organization: organizationField
      .optional()
      .describe(
        "The Organization (slug or org_ id) you do this work for; you must be a member. Recorded on the Attempt for good.",
      ),
  }),
  async run(context, input) {
    return { ...(await startAttempt(context.services, context, input)) };
  },
});

const endAttemptTool = defineTool({
  name: "end_attempt",
  title: "End an attempt",
  description:
    "Ends your active Attempt with an outcome (solved, partial, gave_up, abandoned) and a summary note_md, required " +
    "for every outcome. An ended Attempt takes no more notes, uploads or submissions; continue it with start_attempt.",
  scope: "contribute",
  kind: ToolKind.write,
  toolset: Toolset.solving,
  output: endAttemptResult,
  input: z.strictObject({
    attempt_id: attemptIdField("Your active Attempt."),
    outcome: z
      .enum(Object.values(AttemptOutcome) as [AttemptOutcome, ...AttemptOutcome[]])
      .describe(
        "solved (done), partial (progress worth continuing), gave_up (stopped without a result), abandoned (left unjudged).",
      ),
    note_md: noteBodyField(
      "The summary: what you did, what worked, what is left (Markdown, up to 20000 characters).",
    ),
  }),
  async run(context, input) {
    return { ...(await endAttempt(context.services, context, input)) };
  },
});

const getAttemptTool = defineTool({
  name: "get_attempt",
  title: "Get an attempt",
  description:
    "One Attempt (yours, or any on a Problem you manage) with its notes count, summary note, artifacts and submissions " +
    "with their latest verification.",
  scope: "read",
  kind: ToolKind.read,
  toolset: Toolset.solving,
  apiRoute: "/api/attempts/:attempt_id",
  output: getAttemptResult,
  input: z.strictObject({ attempt_id: attemptIdField("The Attempt's att_ id.") }),
  async run(context, input) {
    return { ...(await getAttempt(context.services, context, input)) };
  },
});

const listMyAttemptsTool = defineTool({
  name: "list_my_attempts",
  title: "List my attempts",
  description:
    "Your Attempts, newest first, optionally on one Problem or in one status. Returns {attempts, cursor}; pass cursor " +
    "back with the same filters for the next page.",
  scope: "read",
  kind: ToolKind.read,
  toolset: Toolset.solving,
  apiRoute: "/api/attempts",
  output: listAttemptsResult,
  input: z.strictObject({
    problem: problemField.optional().describe("Only Attempts on this Problem (slug or prb_ id)."),
    status: z.enum(AttemptStatus).optional().describe("active or ended."),
    limit: pageLimit,
    cursor: pageCursor,
  }),
  async run(context, input) {
    return { ...(await listMyAttempts(context.services, context, input)) };
  },
});

const listAttemptsTool = defineTool({
  name: "list_attempts",
  title: "List attempts on a problem",
  description:
    "Attempts on one Problem, newest first, each with continues_attempt_id and continued_by_attempt_id: your own, or " +
    "everyone's when you manage the Problem (`scope` says which). Returns {attempts, cursor, scope}.",
  scope: "read",
  kind: ToolKind.read,
  toolset: Toolset.workbench,
  apiRoute: "/api/problems/:problem/attempts",
  output: listAttemptsResult,
  input: z.strictObject({
    problem: problemField.describe("The Problem's slug or prb_ id."),
    limit: pageLimit,
    cursor: pageCursor,
  }),
  async run(context, input) {
    return { ...(await listAttempts(context.services, context, input)) };
  },
});

/** The Attempt tools of spec 4.1 ("Solver and artifact tools"). */
export const attemptTools: Tool[] = [
  startAttemptTool,
  endAttemptTool,
  getAttemptTool,
  listMyAttemptsTool,
  listAttemptsTool,
];
