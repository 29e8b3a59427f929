import type { Sql } from "../core/db/connect-sql.ts";

/**
 * The capabilities of token `t` that its user `u` still holds: a token's claims intersected with
 * the live grants at request time, so a revocation applies on the next request whatever token the
 * user holds (issue 15). Keeps the token's (catalogue) order.
 */
export function liveCapabilities(sql: Sql) {
  return sql`array(
    select c from unnest(t.capabilities) with ordinality as claimed(c, n)
    where exists (
      select 1 from user_capabilities g where g.user_id = u.id and g.capability = claimed.c and g.revoked_at is null)
    order by n)`;
}
