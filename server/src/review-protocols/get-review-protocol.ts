import { IdPrefix, idPattern } from "@svc/schemas";
import type { Sql } from "../core/db/connect-sql.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import { readableProtocolSql } from "../visibility/mechanism-visibility-sql.ts";
import type { Viewer } from "../visibility/viewer.ts";
import { type ReviewProtocol, type ReviewProtocolRow, toReviewProtocol } from "./review-protocol.ts";

const PROTOCOL_ID = idPattern(IdPrefix.reviewProtocol);

/**
 * get_review_protocol: the protocol the viewer names by `rpt_` id, when a Contract of work they
 * may read uses it (or they published it); not_found otherwise. Yanked protocols stay readable.
 */
export async function getReviewProtocol(
  sql: Sql,
  viewer: Viewer,
  id: string,
): Promise<{ review_protocol: ReviewProtocol }> {
  const [row] = PROTOCOL_ID.test(id)
    ? await sql<ReviewProtocolRow[]>`
        select id, slug, publisher_user_id, content_hash, document, created_at, yanked_at
        from review_protocols rp where rp.id = ${id} and ${readableProtocolSql(sql, viewer)}`
    : [];
  if (!row)
    throw new ServiceError("not_found", `no review protocol has the id "${id}"`, { review_protocol_id: id });
  return { review_protocol: toReviewProtocol(row) };
}
