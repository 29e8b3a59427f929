import type { Visibility } from "@svc/schemas";

/**
 * Who may see a piece of work (a Campaign or a Problem), from least to most visible:
 *
 * - `private`: only its owner and administrators (checked live); anyone else gets not_found;
 * - `unlisted`: readable by any signed-in user who names it (id or slug), never surfaced;
 * - `listed`: also appears in search, campaign listings, picks and resource listings.
 *
 * New work starts private. A Campaign's Problem carries its own visibility as an exception that
 * can only restrict: its effective visibility is the lesser of its own and its Campaign's.
 */
const RANK: Readonly<Record<Visibility, number>> = { private: 0, unlisted: 1, listed: 2 };

/** The lesser (more restrictive) of two visibilities. */
export function lesserVisibility(a: Visibility, b: Visibility): Visibility {
  return RANK[a] <= RANK[b] ? a : b;
}
