import type { Sql } from "../core/db/connect-sql.ts";
import { ServiceError } from "../core/errors/service-error.ts";

/** A Campaign or Problem row as archiving needs it. */
export interface OwnedWork {
  id: string;
  slug: string;
  owner_user_id: string;
  visibility: string;
  status: string;
  archived_at: Date | null;
}

/**
 * The caller's own Campaign or Problem by id or slug, locked for the transaction. Someone else's
 * private work is not_found, as if it did not exist; someone else's visible work is forbidden.
 */
export async function findOwnedWork(
  tx: Sql,
  kind: "campaign" | "problem",
  idOrSlug: string,
  userId: string,
): Promise<OwnedWork> {
  const rows =
    kind === "campaign"
      ? await tx<OwnedWork[]>`
          select id, slug, owner_user_id, visibility, status, archived_at from campaigns
          where id = ${idOrSlug} or slug = ${idOrSlug} for update`
      : await tx<OwnedWork[]>`
          select id, slug, owner_user_id, visibility, status, archived_at from problems
          where id = ${idOrSlug} or slug = ${idOrSlug} for update`;
  const row = rows[0];
  if (!row || (row.owner_user_id !== userId && row.visibility === "private")) {
    throw new ServiceError("not_found", `no ${kind} has the id or slug "${idOrSlug}"`, { [kind]: idOrSlug });
  }
  if (row.owner_user_id !== userId) {
    throw new ServiceError(
      "forbidden",
      `${kind} ${row.slug} belongs to another user; only its owner archives it`,
      {
        [kind]: idOrSlug,
      },
    );
  }
  return row;
}
