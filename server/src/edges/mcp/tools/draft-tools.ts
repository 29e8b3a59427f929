import { Scope, Visibility } from "@svc/schemas";
import { z } from "zod";
import { getWorkDraft } from "../../../drafts/get-work-draft.ts";
import { listWorkDrafts } from "../../../drafts/list-work-drafts.ts";
import { prepareWorkDraft } from "../../../drafts/prepare-work-draft.ts";
import { publishWorkDraft } from "../../../drafts/publish-work-draft.ts";
import { MAX_DRAFT_READ_BYTES, readWorkDraftFile } from "../../../drafts/read-work-draft-file.ts";
import { saveWorkDraft } from "../../../drafts/save-work-draft.ts";
import { viewerOf } from "../../../visibility/viewer.ts";
import { Toolset } from "../toolsets.ts";
import { defineTool, type Tool, ToolKind } from "./tool.ts";

const draftId = z.string().min(1).max(64).describe("The draft's wdr_ id (save_work_draft returned it).");
const expectedVersion = z
  .string()
  .regex(
    /^[1-9][0-9]{0,9}$/,
    'a draft version is a string of digits such as "3", as get_work_draft returns it',
  )
  .describe(
    "The draft version you read; a stale one is refused with stale_draft_version naming the current one.",
  );
const limit = z.number().int().min(1).max(100).optional().describe("Page size, 1 to 100 (default 50).");
const cursor = z.string().min(1).max(500).optional().describe("The next_cursor of the previous page.");
export const publishedVisibility = z
  .enum([Visibility.unlisted, Visibility.listed])
  .describe("unlisted (anyone signed in who names it) or listed (also in search and discovery).");

const draftFile = z.strictObject({
  path: z
    .string()
    .min(1)
    .max(500)
    .describe('Package-relative path with "/", such as "problems/a/problem.json".'),
  content_text: z.string().optional().describe("The file as UTF-8 text."),
  content_base64: z.string().optional().describe("The file's bytes in base64."),
});

/**
 * The work draft tools of spec 4.1: save, prepare, read and publish a package kept in the
 * service. Private reads take no working_attempt_id (their inputs are strict).
 */
export const draftTools: Tool[] = [
  defineTool({
    name: "save_work_draft",
    title: "Save a work draft",
    description:
      "Creates a draft from a package's files (or from upload_id, one of your authoring uploads) and returns its version; " +
      "saving an existing draft (draft_id) needs expected_version and makes the next version. Files replace the draft's files as a whole.",
    scope: Scope.contribute,
    kind: ToolKind.write,
    toolset: Toolset.authoring,
    input: z.strictObject({
      draft_id: draftId.optional(),
      expected_version: expectedVersion.optional(),
      title: z
        .string()
        .max(200)
        .regex(/^[^\r\n]*$/, "must be one line")
        .optional()
        .describe("A name for the draft."),
      files: z.array(draftFile).max(5000).optional().describe("Every file of the package."),
      upload_id: z
        .string()
        .min(1)
        .max(64)
        .optional()
        .describe("An authoring upload of yours to take the files from."),
    }),
    run: async ({ services, principal }, input) => ({
      ...(await saveWorkDraft(services, viewerOf(principal), input)),
    }),
  }),
  defineTool({
    name: "prepare_work_draft",
    title: "Prepare a work draft",
    description:
      "Validates the draft's version with the same validator and reconciler as validate_authoring_upload and materializes it as private " +
      "Campaigns and Problems (later versions revise them). Invalid drafts answer draft_invalid with the lint errors. Owner (author) or administrator.",
    scope: Scope.contribute,
    kind: ToolKind.write,
    toolset: Toolset.authoring,
    input: z.strictObject({ draft_id: draftId, expected_version: expectedVersion }),
    run: async ({ services, principal }, input) => ({
      ...(await prepareWorkDraft(services, viewerOf(principal), input)),
    }),
  }),
  defineTool({
    name: "list_work_drafts",
    title: "List work drafts",
    description: "Your drafts, newest first (administrators may name owner_user_id).",
    scope: Scope.read,
    kind: ToolKind.read,
    toolset: Toolset.authoring,
    apiRoute: "/api/work-drafts",
    privateRead: true,
    input: z.strictObject({ owner_user_id: z.string().min(1).max(64).optional(), cursor, limit }),
    run: async ({ services, principal }, input) => ({
      ...(await listWorkDrafts(services.sql, viewerOf(principal), input)),
    }),
  }),
  defineTool({
    name: "get_work_draft",
    title: "Get a work draft",
    description: "One draft of yours: version, status, files, lint errors and the work it materialized.",
    scope: Scope.read,
    kind: ToolKind.read,
    toolset: Toolset.authoring,
    apiRoute: "/api/work-drafts/:draft_id",
    privateRead: true,
    input: z.strictObject({ draft_id: draftId }),
    run: async ({ services, principal }, input) => ({
      ...(await getWorkDraft(services.sql, viewerOf(principal), input.draft_id)),
    }),
  }),
  defineTool({
    name: "read_work_draft_file",
    title: "Read a work draft file",
    description:
      "Without path: the draft's files. With path: up to 256 KiB of the file from offset as content_base64, with content_hash, " +
      "size_bytes and next_offset (null at the end).",
    scope: Scope.read,
    kind: ToolKind.read,
    toolset: Toolset.authoring,
    apiRoute: "/api/work-drafts/:draft_id/file",
    privateRead: true,
    input: z.strictObject({
      draft_id: draftId,
      path: z.string().min(1).max(500).optional(),
      offset: z.number().int().min(0).optional().describe("Byte offset to read from (default 0)."),
      limit: z
        .number()
        .int()
        .min(1)
        .max(MAX_DRAFT_READ_BYTES)
        .optional()
        .describe("Most bytes to return (default and ceiling 262144)."),
    }),
    run: async ({ services, principal }, input) => ({
      ...(await readWorkDraftFile(services, viewerOf(principal), input)),
    }),
  }),
  defineTool({
    name: "publish_work_draft",
    title: "Publish a work draft",
    description:
      "Publishes the draft's version (preparing it first when needed) as unlisted or listed work: an author publishes unlisted, a trusted " +
      "author their own listed work, an administrator anything. Reviewed work answers revision_review_required: request_work_publication instead.",
    scope: Scope.contribute,
    kind: ToolKind.write,
    toolset: Toolset.authoring,
    input: z.strictObject({
      draft_id: draftId,
      expected_version: expectedVersion,
      visibility: publishedVisibility,
    }),
    run: async ({ services, principal }, input) => ({
      ...(await publishWorkDraft(services, viewerOf(principal), input)),
    }),
  }),
];
