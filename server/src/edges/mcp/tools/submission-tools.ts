import { z } from "zod";
import { createSubmission } from "../../../submissions/create-submission.ts";
import { listSubmissions } from "../../../submissions/list-submissions.ts";
import { readSubmission } from "../../../submissions/read-submission.ts";
import { withdrawSubmission } from "../../../submissions/withdraw-submission.ts";
import { viewerOf } from "../../../visibility/viewer.ts";
import { createSubmissionResult, getSubmissionResult } from "../../http/api-responses.ts";
import { attemptIdField, recordIdField } from "../../inputs/attempt-fields.ts";
import { Toolset } from "../toolsets.ts";
import { defineTool, type Tool, ToolKind } from "./tool.ts";

const submissionId = (description: string) => recordIdField("sub", "a Submission", description);

const createSubmissionTool = defineTool({
  name: "create_submission",
  title: "Create a submission",
  description:
    "Submits Artifacts of your active Attempt, each bound to a role of the revision's verifier contract (every required " +
    "role exactly once; media types and sizes as the contract says). Queues a verification run when the revision pins a " +
    "contract. Returns {submission, verification_run_id} (null without a contract).",
  scope: "contribute",
  kind: ToolKind.write,
  toolset: Toolset.solving,
  output: createSubmissionResult,
  input: z.strictObject({
    attempt_id: attemptIdField("Your active Attempt."),
    artifacts: z
      .array(
        z.strictObject({
          role: z
            .string()
            .max(40)
            .regex(/^[a-z0-9]+(_[a-z0-9]+)*$/, "must be a role key: lowercase letters and digits joined by _")
            .describe("A role of the contract's submission_requirements.required_artifacts."),
          artifact_id: recordIdField("art", "an Artifact", "An Artifact of this Attempt."),
        }),
      )
      .max(20)
      .describe("The role bindings, at most 20."),
  }),
  async run(context, input) {
    return { ...(await createSubmission(context.services, context, input)) };
  },
});

const withdrawSubmissionTool = defineTool({
  name: "withdraw_submission",
  title: "Withdraw a submission",
  description:
    "Withdraws one of your Submissions for good (it still counts against sealed quotas). Returns {submission}.",
  scope: "contribute",
  kind: ToolKind.destructive,
  toolset: Toolset.workbench,
  input: z.strictObject({ submission_id: submissionId("The Submission to withdraw.") }),
  async run(context, input) {
    return { ...(await withdrawSubmission(context.services, context, input)) };
  },
});

const listSubmissionsTool = defineTool({
  name: "list_submissions",
  title: "List submissions",
  description:
    "The Submissions of one Attempt (attempt_id), or yours on one Problem (problem), oldest first, each with " +
    "verification_run_ids (latest first) and latest_verification. Returns {submissions}.",
  scope: "read",
  kind: ToolKind.read,
  toolset: Toolset.workbench,
  apiRoute: "/api/submissions",
  input: z.strictObject({
    attempt_id: attemptIdField("The Attempt.").optional(),
    problem: z
      .string()
      .min(1)
      .max(64)
      .optional()
      .describe("A Problem (slug or prb_ id): your Submissions on it."),
  }),
  async run(context, input) {
    return { ...(await listSubmissions(context.services, context, input)) };
  },
});

const getSubmissionTool = defineTool({
  name: "get_submission",
  title: "Get a submission",
  description:
    "One Submission (yours, or any on a Problem you manage) with verification_run_ids, latest first. Returns {submission}.",
  scope: "read",
  kind: ToolKind.read,
  toolset: Toolset.solving,
  apiRoute: "/api/submissions/:submission_id",
  output: getSubmissionResult,
  input: z.strictObject({ submission_id: submissionId("The Submission's sub_ id.") }),
  async run(context, input) {
    const { services, principal } = context;
    return {
      submission: await readSubmission(
        services.sql,
        viewerOf(principal),
        input.submission_id,
        "read",
        services.clock(),
      ),
    };
  },
});

/** The Submission tools of spec 4.1. */
export const submissionTools: Tool[] = [
  createSubmissionTool,
  withdrawSubmissionTool,
  listSubmissionsTool,
  getSubmissionTool,
];
