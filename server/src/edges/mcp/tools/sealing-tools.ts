import { z } from "zod";
import { recordInputsReleased } from "../../../agents/record-inputs-released.ts";
import { prepareReferenceRelease } from "../../../sealing/prepare-reference-release.ts";
import { unsealReferenceInputs } from "../../../sealing/unseal-reference-inputs.ts";
import { getFinalEntry } from "../../../submissions/get-final-entry.ts";
import { nominateFinalEntry } from "../../../submissions/nominate-final-entry.ts";
import { viewerOf } from "../../../visibility/viewer.ts";
import { recordIdField } from "../../inputs/attempt-fields.ts";
import { workingAttemptId } from "../../inputs/discovery-inputs.ts";
import { Toolset } from "../toolsets.ts";
import { defineTool, type Tool, ToolKind } from "./tool.ts";

const revisionId = recordIdField("prv", "a ProblemRevision", "The sealed ProblemRevision (prv_...).");

const prepareReferenceReleaseTool = defineTool({
  name: "prepare_reference_release",
  title: "Prepare an early release of sealed inputs",
  description:
    "Managers of a sealed Problem: the evaluation an early release would end, the exact revisions sharing it (all are " +
    "unsealed together), and the acknowledgement_fingerprint unseal_reference_inputs needs. Changes nothing.",
  scope: "read",
  kind: ToolKind.read,
  toolset: Toolset.sealed,
  apiRoute: "/api/problem-revisions/:revision_id/reference-release",
  input: z.strictObject({ revision_id: revisionId, working_attempt_id: workingAttemptId }),
  async run({ services, principal }, input) {
    return {
      ...(await prepareReferenceRelease(
        services.sql,
        viewerOf(principal),
        input.revision_id,
        services.clock(),
      )),
    };
  },
});

const unsealReferenceInputsTool = defineTool({
  name: "unseal_reference_inputs",
  title: "Unseal reference inputs early",
  description:
    "Managers: ends sealing now for every revision of the evaluation, irreversibly, and records the public " +
    "release_event {unsealed_at, user_id, reason_md}. Pass the acknowledgement_fingerprint prepare_reference_release " +
    "returned; a missing or stale one is refused. Returns {sealing, affected_revision_ids}.",
  scope: "contribute",
  kind: ToolKind.write,
  toolset: Toolset.sealed,
  input: z.strictObject({
    revision_id: revisionId,
    reason_md: z
      .string()
      .min(1)
      .max(4000)
      .describe("Why the inputs are released early (public), 1 to 4000 chars."),
    acknowledgement_fingerprint: z
      .string()
      .max(200)
      .optional()
      .describe("The acknowledgement_fingerprint prepare_reference_release returned."),
  }),
  async run({ services, principal }, input) {
    return {
      ...(await unsealReferenceInputs(
        services.sql,
        viewerOf(principal),
        input,
        services.clock(),
        recordInputsReleased,
      )),
    };
  },
});

const nominateFinalEntryTool = defineTool({
  name: "nominate_final_entry",
  title: "Nominate your final entry",
  description:
    "Independent sealed evaluations: selects or replaces your final Submission before the cutoff or the label release, " +
    "whichever comes first. Repeating the current selection changes nothing. Returns {nomination, changed}.",
  scope: "contribute",
  kind: ToolKind.write,
  toolset: Toolset.sealed,
  input: z.strictObject({
    submission_id: recordIdField("sub", "a Submission", "Your Submission on the sealed evaluation."),
  }),
  async run({ services, principal }, input) {
    return {
      ...(await nominateFinalEntry(services.sql, viewerOf(principal), input.submission_id, services.clock)),
    };
  },
});

const eventCursor = z
  .string()
  .min(1)
  .max(19)
  .optional()
  .describe("The next_cursor of the previous page (an event id); omit for the first page.");

const getFinalEntryTool = defineTool({
  name: "get_final_entry",
  title: "Get final entries",
  description:
    "Independent sealed evaluations: cutoff, selection_freezes_at, frozen, your latest_nomination, and separate pages " +
    "of entry history and nominations with their own cursors. Before the cutoff you see only your own events.",
  scope: "read",
  kind: ToolKind.read,
  toolset: Toolset.sealed,
  apiRoute: "/api/problem-revisions/:revision_id/final-entry",
  input: z.strictObject({
    revision_id: revisionId,
    limit: z.number().int().min(1).max(100).default(50).describe("Page size, 1 to 100 (default 50)."),
    history_cursor: eventCursor,
    nominations_cursor: eventCursor,
    working_attempt_id: workingAttemptId,
  }),
  async run({ services, principal }, input) {
    return { ...(await getFinalEntry(services.sql, viewerOf(principal), input, services.clock())) };
  },
});

/** The sealed evaluation tools (spec 4.1), registered in tools.ts. */
export const sealingTools: readonly Tool[] = [
  prepareReferenceReleaseTool,
  unsealReferenceInputsTool,
  nominateFinalEntryTool,
  getFinalEntryTool,
] as Tool[];
