import { PublicationRequestStatus, Role, Scope } from "@svc/schemas";
import { z } from "zod";
import { ServiceError } from "../../../core/errors/service-error.ts";
import { listPublicationRequests } from "../../../publication-requests/list-publication-requests.ts";
import { requestWorkPublication } from "../../../publication-requests/request-work-publication.ts";
import {
  ReviewDecision,
  reviewWorkPublication,
} from "../../../publication-requests/review-work-publication.ts";
import { viewerOf } from "../../../visibility/viewer.ts";
import { workReference } from "../../../work/work-reference.ts";
import { listWorkAudit } from "../../../work-audit/list-work-audit.ts";
import { Toolset } from "../toolsets.ts";
import { publishedVisibility } from "./draft-tools.ts";
import { defineTool, type Tool, ToolKind } from "./tool.ts";

const limit = z.number().int().min(1).max(100).optional().describe("Page size, 1 to 100 (default 50).");
const cursor = z.string().min(1).max(500).optional().describe("The next_cursor of the previous page.");

/** Publication requests (spec 4.1) and the work audit trail (spec 6.4). */
export const publicationTools: Tool[] = [
  defineTool({
    name: "request_work_publication",
    title: "Request work publication",
    description:
      "Asks an administrator to publish a draft version ({draft_id, expected_version}) or a piece of work ({work, expected_snapshot} " +
      "from get_work_management) as visibility (default listed). Approval publishes exactly what the request pins.",
    scope: Scope.contribute,
    kind: ToolKind.write,
    toolset: Toolset.authoring,
    input: z.strictObject({
      draft_id: z.string().min(1).max(64).optional(),
      expected_version: z
        .string()
        .regex(/^[1-9][0-9]{0,9}$/, 'a draft version is a string of digits such as "3"')
        .optional(),
      work: workReference.optional(),
      expected_snapshot: z.string().min(1).max(200).optional(),
      visibility: publishedVisibility.optional(),
      note_md: z.string().max(20_000).optional().describe("What the reviewer should know."),
    }),
    run: async ({ services, principal }, input) => {
      const { draft_id, expected_version, work, expected_snapshot, ...rest } = input;
      if ((draft_id === undefined) === (work === undefined)) {
        throw new ServiceError(
          "invalid_input",
          "pin exactly one thing: {draft_id, expected_version} or {work, expected_snapshot}",
          { field: "draft_id" },
        );
      }
      if (draft_id !== undefined) {
        if (expected_version === undefined) {
          throw new ServiceError(
            "invalid_input",
            "expected_version is required with draft_id: pin the version you read",
            {
              field: "expected_version",
            },
          );
        }
        return {
          ...(await requestWorkPublication(services, viewerOf(principal), {
            ...rest,
            draft_id,
            expected_version,
          })),
        };
      }
      if (expected_snapshot === undefined) {
        throw new ServiceError(
          "invalid_input",
          "expected_snapshot is required with work: pin the snapshot get_work_management returned",
          { field: "expected_snapshot" },
        );
      }
      return {
        ...(await requestWorkPublication(services, viewerOf(principal), {
          ...rest,
          work: work!,
          expected_snapshot,
        })),
      };
    },
  }),
  defineTool({
    name: "review_work_publication",
    title: "Review a publication request",
    description:
      "Administrators approve (publishing exactly the pinned version or snapshot; a stale pin is refused) or reject with reason_md; " +
      "the requester withdraws.",
    scope: Scope.contribute,
    kind: ToolKind.write,
    toolset: Toolset.maintenance,
    input: z.strictObject({
      request_id: z.string().min(1).max(64).describe("The pbr_ id request_work_publication returned."),
      decision: z.enum(ReviewDecision),
      reason_md: z.string().max(20_000).optional().describe("Why; required to reject."),
    }),
    run: async ({ services, principal }, input) => ({
      ...(await reviewWorkPublication(services, viewerOf(principal), input)),
    }),
  }),
  defineTool({
    name: "list_publication_requests",
    title: "List publication requests",
    description: "Administrators: publication requests oldest first, optionally of one status.",
    scope: Scope.contribute,
    kind: ToolKind.read,
    toolset: Toolset.administration,
    apiRoute: "/api/publication-requests",
    role: Role.administrator,
    input: z.strictObject({ status: z.enum(PublicationRequestStatus).optional(), cursor, limit }),
    run: async ({ services, principal }, input) => ({
      ...(await listPublicationRequests(services.sql, viewerOf(principal), input)),
    }),
  }),
  defineTool({
    name: "list_work_audit",
    title: "List the work audit trail",
    description:
      "The append-only work history newest first: actor, action, subject, upload, plan_hash, revisions created, time. Filter by work or " +
      "draft_id (managers only); without a filter, entries on your work and drafts (administrators: all).",
    scope: Scope.read,
    kind: ToolKind.read,
    toolset: Toolset.authoring,
    apiRoute: "/api/work-audit",
    input: z.strictObject({
      work: workReference.optional(),
      draft_id: z.string().min(1).max(64).optional(),
      cursor,
      limit,
    }),
    run: async ({ services, principal }, input) => ({
      ...(await listWorkAudit(services.sql, viewerOf(principal), input)),
    }),
  }),
];
