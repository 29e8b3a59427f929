import { Role, Scope } from "@svc/schemas";
import { z } from "zod";
import { archiveCampaign } from "../../../authoring/archive-campaign.ts";
import { archiveProblem } from "../../../authoring/archive-problem.ts";
import { publishAuthoringUpload } from "../../../authoring/publish-authoring-upload.ts";
import { requestAuthoringUpload } from "../../../authoring/request-authoring-upload.ts";
import { MAX_UPLOAD_BYTES } from "../../../authoring/upload-state.ts";
import { validateAuthoringUpload } from "../../../authoring/validate-authoring-upload.ts";
import { Toolset } from "../toolsets.ts";
import { defineTool, type Tool, ToolKind } from "./tool.ts";

const uploadId = z.string().min(1).max(64).describe("The upload_id request_authoring_upload returned.");
const contentHash = z
  .string()
  .regex(/^sha256:[0-9a-f]{64}$/, 'a content hash is "sha256:" and 64 lowercase hex digits');

/** The authoring tools of spec 4.1: request, validate and publish uploads; archive work. */
export const authoringTools: Tool[] = [
  defineTool({
    name: "request_authoring_upload",
    title: "Request an authoring upload",
    description:
      "Starts publishing a package: declare the size and sha256 of its ZIP archive and receive a signed URL to PUT exactly those bytes to (15 minutes). Then call validate_authoring_upload.",
    scope: Scope.contribute,
    kind: ToolKind.write,
    toolset: Toolset.authoring,
    input: z.object({
      size_bytes: z
        .number()
        .int()
        .min(1)
        .max(MAX_UPLOAD_BYTES)
        .describe("The archive's size in bytes (at most 64 MiB)."),
      content_hash: contentHash.describe("sha256 of the archive's bytes."),
    }),
    run: async ({ services, principal, baseUrl }, input) => ({
      ...(await requestAuthoringUpload(services, principal, input, baseUrl)),
    }),
  }),
  defineTool({
    name: "validate_authoring_upload",
    title: "Validate an authoring upload",
    description:
      "Lints the uploaded package and reconciles it with live state: returns valid, errors, notes, plan, plan_hash, images and the reconciliation (create, update, revise, noop or conflict per problem). Revalidating recomputes against current state; the package is never changed.",
    scope: Scope.contribute,
    kind: ToolKind.write,
    toolset: Toolset.authoring,
    input: z.object({ upload_id: uploadId }),
    run: async ({ services, principal }, input) => ({
      ...(await validateAuthoringUpload(services, principal, input)),
    }),
  }),
  defineTool({
    name: "publish_authoring_upload",
    title: "Publish a validated upload",
    description:
      "Publishes a validated upload whose plan_hash matches: creates skills, protocols, contracts, implementations, the campaign and problem revisions as reconciled. New work starts private. Publications are immutable. Needs the author capability or the administrator role; publishing again returns the recorded result.",
    scope: Scope.contribute,
    kind: ToolKind.write,
    toolset: Toolset.authoring,
    input: z.object({
      upload_id: uploadId,
      plan_hash: contentHash.describe("The plan_hash validate_authoring_upload returned."),
    }),
    run: async ({ services, principal }, input) => ({
      ...(await publishAuthoringUpload(services, principal, input)),
    }),
  }),
  defineTool({
    name: "archive_campaign",
    title: "Archive a campaign",
    description:
      "Archives one of your campaigns for good, with its open problems: they take no new attempts. Needs the author capability.",
    scope: Scope.contribute,
    kind: ToolKind.write,
    toolset: Toolset.authoring,
    role: Role.author,
    input: z.object({ campaign: z.string().min(1).max(64).describe("The campaign's id or slug.") }),
    run: async ({ services, principal }, input) => ({
      ...(await archiveCampaign(services, principal, input)),
    }),
  }),
  defineTool({
    name: "archive_problem",
    title: "Archive a problem",
    description:
      "Archives one of your problems for good: it takes no new attempts or revisions. Needs the author capability.",
    scope: Scope.contribute,
    kind: ToolKind.write,
    toolset: Toolset.authoring,
    role: Role.author,
    input: z.object({ problem: z.string().min(1).max(64).describe("The problem's id or slug.") }),
    run: async ({ services, principal }, input) => ({
      ...(await archiveProblem(services, principal, input)),
    }),
  }),
];
