import { Visibility } from "@svc/schemas";
import { z } from "zod";
import { viewerOf } from "../../../visibility/viewer.ts";
import { getWorkManagement } from "../../../work/get-work-management.ts";
import { setWorkVisibility } from "../../../work/set-work-visibility.ts";
import { updateWorkDetails } from "../../../work/update-work-details.ts";
import { workReference } from "../../../work/work-reference.ts";
import { workingAttemptId } from "../../inputs/discovery-inputs.ts";
import { Toolset } from "../toolsets.ts";
import { defineTool, type Tool, ToolKind } from "./tool.ts";

const expectedSnapshot = z
  .string()
  .min(1)
  .max(200)
  .describe(
    "The snapshot get_work_management returned; the edit is refused with conflict if the work changed since.",
  );

const getWorkManagementTool = defineTool({
  name: "get_work_management",
  title: "Get work management",
  description:
    "For the owner or an administrator: a Campaign or Problem with its own and effective visibility, status and " +
    "mutable details, and the snapshot to pass as expected_snapshot to update_work_details or set_work_visibility.",
  scope: "read",
  kind: ToolKind.read,
  toolset: Toolset.authoring,
  apiRoute: "/api/work-management",
  input: z.strictObject({ work: workReference, working_attempt_id: workingAttemptId }),
  async run({ services, principal }, input) {
    const viewer = viewerOf(principal);
    return { ...(await getWorkManagement(services.sql, viewer, input.work)) };
  },
});

const updateWorkDetailsTool = defineTool({
  name: "update_work_details",
  title: "Update work details",
  description:
    "Changes a Campaign's or Problem's title, summary, priority_weight (problems) or description_md (campaigns) " +
    "in place, without a new revision. Owner or administrator; needs expected_snapshot.",
  scope: "contribute",
  kind: ToolKind.write,
  toolset: Toolset.authoring,
  input: z.strictObject({
    work: workReference,
    expected_snapshot: expectedSnapshot,
    title: z
      .string()
      .min(1)
      .max(200)
      .regex(/^[^\r\n]*$/, "must be one line")
      .optional(),
    summary: z.string().min(1).max(1000).optional(),
    priority_weight: z.number().min(0).max(1).optional(),
    description_md: z.string().max(100_000).optional(),
  }),
  async run({ services, principal }, input) {
    const viewer = viewerOf(principal);
    return { ...(await updateWorkDetails(services, viewer, input)) };
  },
});

const setWorkVisibilityTool = defineTool({
  name: "set_work_visibility",
  title: "Set work visibility",
  description:
    "Moves a Campaign or Problem between private (owner and administrators only), unlisted (anyone signed in " +
    "who names it) and listed (also in search and discovery). Raising to unlisted needs the author role, to " +
    "listed the trusted-author role or an administrator; restricting is always allowed to the owner.",
  scope: "contribute",
  kind: ToolKind.write,
  toolset: Toolset.authoring,
  input: z.strictObject({
    work: workReference,
    visibility: z.enum(Visibility),
    expected_snapshot: expectedSnapshot,
  }),
  async run({ services, principal }, input) {
    const viewer = viewerOf(principal);
    return { ...(await setWorkVisibility(services, viewer, input)) };
  },
});

/** Work management: get_work_management, update_work_details, set_work_visibility. */
export const workTools: Tool[] = [getWorkManagementTool, updateWorkDetailsTool, setWorkVisibilityTool];
