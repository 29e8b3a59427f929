/** The canonical ReviewProtocol record (spec 2.1); no other properties. */
export interface ReviewProtocol {
  id: string;
  slug: string;
  publisher_user_id: string;
  content_hash: string;
  document: Record<string, unknown>;
  created_at: string;
  yanked_at: string | null;
}

/** A `review_protocols` row. */
export type ReviewProtocolRow = Omit<ReviewProtocol, "created_at" | "yanked_at"> & {
  created_at: Date;
  yanked_at: Date | null;
};

/** The canonical record of a row. */
export function toReviewProtocol(row: ReviewProtocolRow): ReviewProtocol {
  return {
    id: row.id,
    slug: row.slug,
    publisher_user_id: row.publisher_user_id,
    content_hash: row.content_hash,
    document: row.document,
    created_at: row.created_at.toISOString(),
    yanked_at: row.yanked_at?.toISOString() ?? null,
  };
}
