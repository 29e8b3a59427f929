import type { Sql } from "../core/db/connect-sql.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import type { DeliveryAttempt } from "./delivery-attempt.ts";
import { cursorPosition } from "./list-events.ts";

/**
 * events/deliveries: one of the caller's webhook subscriptions' delivery log, newest attempt
 * first, `limit` at a time; `next_cursor` (null at the end) pages on to older ones. Someone else's
 * subscription is not_found, never a hint that it exists.
 */
export async function listDeliveries(
  sql: Sql,
  userId: string,
  input: { subscription_id: string; cursor?: string | undefined; limit: number },
) {
  const [owned] = await sql`
    select 1 from event_subscriptions where id = ${input.subscription_id} and user_id = ${userId}`;
  if (!owned) {
    throw new ServiceError("not_found", `you have no event subscription "${input.subscription_id}"`, {
      subscription_id: input.subscription_id,
    });
  }
  const before = input.cursor === undefined ? null : cursorPosition(input.cursor);
  const rows = await sql<(Omit<DeliveryAttempt, "subscription_id"> & { id: string })[]>`
    select id::text as id, event_id::text as event_id, attempted_at, status_code, delivered, error, duration_ms
    from event_deliveries
    where subscription_id = ${input.subscription_id} ${before === null ? sql`` : sql`and id < ${before}::bigint`}
    order by id desc limit ${input.limit + 1}`;
  const page = rows.slice(0, input.limit);
  return {
    deliveries: page.map((row) => ({
      delivery_id: row.id,
      event_id: row.event_id,
      attempted_at: row.attempted_at.toISOString(),
      status_code: row.status_code,
      delivered: row.delivered,
      error: row.error,
      duration_ms: row.duration_ms,
    })),
    next_cursor: rows.length > input.limit ? page.at(-1)!.id : null,
  };
}
