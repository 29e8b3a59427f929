import type { PublicationRequestStatus } from "@svc/schemas";
import type { Sql } from "../core/db/connect-sql.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import { cursorFingerprint, decodeCursor, encodeCursor } from "../core/paging/page-cursor.ts";
import type { Viewer } from "../visibility/viewer.ts";
import {
  type PublicationRequest,
  type PublicationRequestRow,
  toPublicationRequest,
} from "./publication-request.ts";

/**
 * list_publication_requests (spec 4.1: only administrators list): requests oldest first (the
 * review queue's order), optionally of one status, cursor-paged by id order of creation.
 */
export async function listPublicationRequests(
  sql: Sql,
  viewer: Viewer,
  input: {
    status?: PublicationRequestStatus | undefined;
    cursor?: string | undefined;
    limit?: number | undefined;
  },
): Promise<{ requests: PublicationRequest[]; next_cursor: string | null }> {
  if (!viewer.isAdministrator) {
    throw new ServiceError("forbidden", "only administrators list publication requests", {
      required_role: "administrator",
    });
  }
  const limit = input.limit ?? 50;
  const fingerprint = cursorFingerprint({ list: "publication_requests", status: input.status ?? null });
  const after = input.cursor ? decodeCursor(input.cursor, fingerprint, 2).k : null;
  const rows = await sql<PublicationRequestRow[]>`
    select * from publication_requests
    where true ${input.status ? sql`and status = ${input.status}` : sql``}
      ${after ? sql`and (created_at, id) > (${String(after[0])}::timestamptz, ${String(after[1])})` : sql``}
    order by created_at, id limit ${limit + 1}`;
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    requests: page.map(toPublicationRequest),
    next_cursor:
      rows.length > limit && last
        ? encodeCursor({ k: [last.created_at.toISOString(), last.id], f: fingerprint })
        : null,
  };
}
