import { IdPrefix, idPattern } from "@svc/schemas";
import { inTransaction } from "../core/db/in-transaction.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import type { Services } from "../core/services/services.ts";
import { readableProtocolSql } from "../visibility/mechanism-visibility-sql.ts";
import type { Viewer } from "../visibility/viewer.ts";

const PROTOCOL_ID = idPattern(IdPrefix.reviewProtocol);

/** What yank_review_protocol returns: the protocol and its yank (when, by whom, why). */
export interface ProtocolYank {
  review_protocol_id: string;
  yank: { yanked_at: string; yanked_by_user_id: string; reason_md: string };
}

/**
 * yank_review_protocol (spec 2.1, 3 and 9.5): its publisher or a live administrator withdraws a
 * protocol from recommendation, once, with a reason. Nothing else moves: Contracts that pin it
 * keep resolving it, and ReviewProcesses (which snapshot the document and its hash) keep their
 * meaning; validation notes a package that pins it (`yanked_review_protocol`). A caller who
 * cannot read the protocol gets not_found; one who can but did not publish it gets not_yours.
 */
export async function yankReviewProtocol(
  services: Services,
  viewer: Viewer,
  input: { review_protocol_id: string; reason_md: string },
): Promise<ProtocolYank> {
  const id = input.review_protocol_id;
  return await inTransaction(services.sql, async (tx) => {
    const [row] = PROTOCOL_ID.test(id)
      ? await tx<
          {
            publisher_user_id: string;
            yanked_at: Date | null;
            yanked_by_user_id: string | null;
            yank_reason_md: string | null;
            readable: boolean;
          }[]
        >`
          select rp.publisher_user_id, rp.yanked_at, rp.yanked_by_user_id, rp.yank_reason_md,
            ${readableProtocolSql(tx, viewer)} as readable
          from review_protocols rp where rp.id = ${id} for update`
      : [];
    const owner = row?.publisher_user_id === viewer.userId;
    if (!row || !(row.readable || owner)) {
      throw new ServiceError("not_found", `no review protocol you can read has the id "${id}"`, {
        review_protocol_id: id,
      });
    }
    if (!owner && !viewer.isAdministrator) {
      throw new ServiceError(
        "not_yours",
        `review protocol ${id} was published by another user; only its publisher or an administrator yanks it`,
        { review_protocol_id: id },
      );
    }
    if (row.yanked_at !== null) {
      throw new ServiceError(
        "already_yanked",
        `review protocol ${id} is already yanked; a yank is written once`,
        {
          review_protocol_id: id,
          yank: {
            yanked_at: row.yanked_at.toISOString(),
            yanked_by_user_id: row.yanked_by_user_id,
            reason_md: row.yank_reason_md,
          },
        },
      );
    }
    const yank = {
      yanked_at: services.clock().toISOString(),
      yanked_by_user_id: viewer.userId,
      reason_md: input.reason_md,
    };
    await tx`
      update review_protocols
      set yanked_at = ${yank.yanked_at}, yanked_by_user_id = ${yank.yanked_by_user_id}, yank_reason_md = ${yank.reason_md}
      where id = ${id}`;
    return { review_protocol_id: id, yank };
  });
}
