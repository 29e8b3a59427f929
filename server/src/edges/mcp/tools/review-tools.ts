import { AssignmentStatus, IdPrefix, idPattern } from "@svc/schemas";
import { z } from "zod";
import type { ReviewResponseInput } from "../../../core/services/review-response.ts";
import { yankReviewProtocol } from "../../../review-protocols/yank-review-protocol.ts";
import { claimReview } from "../../../reviews/claim-review.ts";
import { declineReviewAssignment } from "../../../reviews/decline-review-assignment.ts";
import { getReviewAssignment } from "../../../reviews/read/get-review-assignment.ts";
import { getReviewCase } from "../../../reviews/read/get-review-case.ts";
import { getReviewProcess } from "../../../reviews/read/get-review-process.ts";
import { listMyReviewAssignments } from "../../../reviews/read/list-my-review-assignments.ts";
import { pickReview } from "../../../reviews/read/pick-review.ts";
import { claimResult, ownAssignmentView } from "../../../reviews/read/review-assignment-result.ts";
import { submitReviewResponse } from "../../../reviews/submit-review-response.ts";
import { viewerOf } from "../../../visibility/viewer.ts";
import { workingAttemptId } from "../../inputs/discovery-inputs.ts";
import { reasonMd } from "../../inputs/verification-inputs.ts";
import { resourceJson } from "../resources/resource-bytes.ts";
import type { ResourceTemplate } from "../resources/resource-template.ts";
import { Toolset } from "../toolsets.ts";
import { defineTool, type Tool, ToolKind } from "./tool.ts";

type SubmitInput = { assignment_id: string } & ReviewResponseInput;

const processId = z
  .string()
  .regex(
    idPattern(IdPrefix.reviewProcess),
    "must be a ReviewProcess id: rpr_ and 10 to 32 characters of 0-9 and a-z",
  )
  .describe("The ReviewProcess id (rpr_...).");
const nodeId = z
  .string()
  .regex(
    /^[a-z][a-z0-9_]{0,39}$/,
    "must be a protocol node id: a lowercase letter, then up to 39 of a-z, 0-9, _",
  )
  .describe("The review node's id in the protocol.");
const assignmentId = z
  .string()
  .regex(
    idPattern(IdPrefix.reviewAssignment),
    "must be a ReviewAssignment id: ras_ and 10 to 32 characters of 0-9 and a-z",
  )
  .describe("The ReviewAssignment id (ras_...).");

const getReviewProcessTool = defineTool({
  name: "get_review_process",
  title: "Get a review process",
  description:
    "A ReviewProcess: protocol snapshot and hash, subject, each node's state (seats, deadline) and result with " +
    "every reducer step, and assignments; judgments are withheld until their node completes. For the subject's " +
    "managers, its submitter and its reviewers; blinded as docs/reviews.md says.",
  scope: "read",
  kind: ToolKind.read,
  toolset: Toolset.review,
  apiRoute: "/api/review-processes/:review_process_id",
  input: z.strictObject({ review_process_id: processId, working_attempt_id: workingAttemptId }),
  async run({ services, principal, baseUrl }, input) {
    return {
      review_process: await getReviewProcess(services, viewerOf(principal), input.review_process_id, baseUrl),
    };
  },
});

const pickReviewTool = defineTool({
  name: "pick_review",
  title: "Find review seats",
  description:
    "Open review seats you may claim now (eligible, not in conflict, no seat of yours on that node), soonest " +
    "deadline first; narrow by campaign or problem (id or slug). Read a seat's case with get_review_case, take " +
    "it with claim_review.",
  scope: "read",
  kind: ToolKind.read,
  toolset: Toolset.review,
  apiRoute: "/api/review-picks",
  input: z.strictObject({
    campaign: z
      .string()
      .min(1)
      .max(64)
      .optional()
      .describe("Only seats on this Campaign's work (slug or cmp_ id)."),
    problem: z.string().min(1).max(64).optional().describe("Only seats on this Problem (slug or prb_ id)."),
    limit: z.number().int().min(1).max(100).default(20).describe("How many seats, 1 to 100 (default 20)."),
    working_attempt_id: workingAttemptId,
  }),
  async run({ services, principal, baseUrl }, input) {
    return { ...(await pickReview(services, viewerOf(principal), input, baseUrl)) };
  },
});

const getReviewCaseTool = defineTool({
  name: "get_review_case",
  title: "Read a review case",
  description:
    "What a reviewer of one review node gets (rubric, subject, materials), without claiming: takes no seat, renews " +
    "no hold, submits and drafts nothing. Eligibility, conflicts and blinding apply. Returns case_url and " +
    "assignment_url (null when you hold no assignment on the node).",
  scope: "read",
  kind: ToolKind.read,
  toolset: Toolset.review,
  apiRoute: "/api/review-processes/:review_process_id/cases/:node_id",
  input: z.strictObject({
    review_process_id: processId,
    node_id: nodeId,
    working_attempt_id: workingAttemptId,
  }),
  async run({ services, principal, baseUrl }, input) {
    return { ...(await getReviewCase(services, viewerOf(principal), input, baseUrl)) };
  },
});

const listMyReviewAssignmentsTool = defineTool({
  name: "list_my_review_assignments",
  title: "List my review assignments",
  description:
    "Your review assignments, newest claim first, each with case_url and assignment_url; narrow by status " +
    "(claimed, submitted, declined, lapsed). Pages of up to 100 with a cursor.",
  scope: "read",
  kind: ToolKind.read,
  toolset: Toolset.review,
  apiRoute: "/api/review-assignments",
  input: z.strictObject({
    status: z.enum(AssignmentStatus).optional().describe("Only this state."),
    limit: z.number().int().min(1).max(100).default(50).describe("Page size, 1 to 100 (default 50)."),
    cursor: z.string().min(1).max(200).optional().describe("next_cursor of the previous page."),
    working_attempt_id: workingAttemptId,
  }),
  async run({ services, principal, baseUrl }, input) {
    return { ...(await listMyReviewAssignments(services, viewerOf(principal), input, baseUrl)) };
  },
});

const getReviewAssignmentTool = defineTool({
  name: "get_review_assignment",
  title: "Get a review assignment",
  description:
    "One of your review assignments (state, hold, your judgment) with case_url and assignment_url; while the " +
    "claim is live, the bundle again.",
  scope: "read",
  kind: ToolKind.read,
  toolset: Toolset.review,
  apiRoute: "/api/review-assignments/:assignment_id",
  input: z.strictObject({ assignment_id: assignmentId, working_attempt_id: workingAttemptId }),
  async run({ services, principal, baseUrl }, input) {
    return { ...(await getReviewAssignment(services, viewerOf(principal), input.assignment_id, baseUrl)) };
  },
});

const claimReviewTool = defineTool({
  name: "claim_review",
  title: "Claim a review seat",
  description:
    "Takes one open seat of a review node for you and returns the assignment, the reviewer bundle, hold_until " +
    "(the claim lapses then and the seat reopens), case_url and assignment_url. Claiming again while you hold " +
    "the seat renews the hold.",
  scope: "contribute",
  kind: ToolKind.write,
  toolset: Toolset.review,
  input: z.strictObject({ review_process_id: processId, node_id: nodeId }),
  async run({ services, principal, baseUrl }, input) {
    const viewer = viewerOf(principal);
    const row = await claimReview(services, viewer.userId, input);
    return { ...(await claimResult(services, viewer, row, baseUrl)) };
  },
});

const declineReviewAssignmentTool = defineTool({
  name: "decline_review_assignment",
  title: "Decline a review assignment",
  description: "Gives up your claim on a seat for good; the seat reopens for others.",
  scope: "contribute",
  kind: ToolKind.destructive,
  toolset: Toolset.review,
  input: z.strictObject({ assignment_id: assignmentId }),
  async run({ services, principal, baseUrl }, input) {
    const viewer = viewerOf(principal);
    const row = await declineReviewAssignment(services, viewer.userId, input.assignment_id);
    return { assignment: await ownAssignmentView(services, viewer, row, baseUrl) };
  },
});

const submitReviewResponseTool = defineTool({
  name: "submit_review_response",
  title: "Submit a review response",
  description:
    "Your judgment for a claimed seat: `response` (must satisfy the rubric's response_schema), rationale_md, " +
    "citations [{source, locator?, quote?}], confidence in [0, 1] and assistance {provider, model, config?} as " +
    "the rubric demands. A response that fails the rubric is refused with every problem named " +
    "(response_rejected) and the claim stays open for a corrected resubmit. Final once accepted.",
  scope: "contribute",
  kind: ToolKind.destructive,
  toolset: Toolset.review,
  input: z.strictObject({
    assignment_id: assignmentId,
    response: z.unknown().describe("The structured judgment the rubric's response_schema describes."),
    rationale_md: z.string().max(20_000).nullable().optional().describe("Why, in Markdown."),
    // Checked by the rubric check, not here, so one refusal names every problem at once.
    citations: z
      .unknown()
      .optional()
      .describe(
        "An array of {source (1 to 500 chars: resource URI, URL or package path), locator? (<= 200), quote? (<= 2000)}.",
      ),
    confidence: z.unknown().optional().describe("How sure you are: a number from 0 to 1, or null."),
    assistance: z
      .unknown()
      .optional()
      .describe("The agent or tool that assisted you: {provider, model, config?}, or null."),
  }),
  async run({ services, principal, baseUrl }, input) {
    const viewer = viewerOf(principal);
    // checkReviewResponse checks every field's type itself and names each problem it finds.
    const row = await submitReviewResponse(services, viewer.userId, input as SubmitInput);
    return { assignment: await ownAssignmentView(services, viewer, row, baseUrl) };
  },
});

const yankReviewProtocolTool = defineTool({
  name: "yank_review_protocol",
  title: "Yank a review protocol",
  description:
    "Its publisher or an administrator withdraws a ReviewProtocol from recommendation, once, with a reason. " +
    "Contracts that pin it keep resolving it and review processes keep their meaning; validation notes new pins.",
  scope: "contribute",
  kind: ToolKind.destructive,
  toolset: Toolset.maintenance,
  input: z.strictObject({
    review_protocol_id: z
      .string()
      .regex(
        idPattern(IdPrefix.reviewProtocol),
        "must be a ReviewProtocol id: rpt_ and 10 to 32 characters of 0-9 and a-z",
      )
      .describe("The ReviewProtocol id (rpt_...)."),
    reason_md: reasonMd,
  }),
  async run({ services, principal }, input) {
    return { ...(await yankReviewProtocol(services, viewerOf(principal), input)) };
  },
});

/** The review tools of spec 4.1 (get_review_protocol is a discovery tool), registered in tools.ts. */
export const reviewTools: readonly Tool[] = [
  getReviewProcessTool,
  pickReviewTool,
  getReviewCaseTool,
  listMyReviewAssignmentsTool,
  getReviewAssignmentTool,
  claimReviewTool,
  declineReviewAssignmentTool,
  submitReviewResponseTool,
  yankReviewProtocolTool,
] as Tool[];

const reviewProcessResource: ResourceTemplate = {
  name: "review-process",
  uriTemplate: "svc://review-processes/{review_process_id}",
  title: "Review process",
  description:
    "A ReviewProcess as JSON (what get_review_process returns): protocol snapshot and hash, node results with " +
    "every reducer step, assignments with judgments withheld until their node completes.",
  async read(context, uri, variables) {
    const view = await getReviewProcess(
      context.services,
      viewerOf(context.principal),
      variables.review_process_id ?? "",
      context.baseUrl,
    );
    return [resourceJson(uri, view)];
  },
};

/** The review resource templates, registered in tools.ts. */
export const reviewResources: readonly ResourceTemplate[] = [reviewProcessResource];
