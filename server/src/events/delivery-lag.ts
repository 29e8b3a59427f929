import type { Sql } from "../core/db/connect-sql.ts";

/**
 * The event log's head against the live webhook subscriptions' cursors (metrics): how many
 * subscriptions there are, how many are failing, and the largest lag in event ids. The lag counts
 * every event after a cursor, also those its subscriber may not see, so it is an upper bound.
 */
export interface DeliveryLag {
  head: number;
  subscriptions: number;
  failing: number;
  max_lag: number;
}

export async function deliveryLag(sql: Sql): Promise<DeliveryLag> {
  const [row] = await sql<
    Array<{ head: string | null; subscriptions: number; failing: number; min_cursor: string | null }>
  >`
    select (select max(id) from events) as head,
      count(*)::int as subscriptions,
      count(*) filter (where failures > 0)::int as failing,
      min(cursor) as min_cursor
    from event_subscriptions where ended_at is null`;
  const head = Number(row?.head ?? 0);
  const minCursor = row?.min_cursor === null || row?.min_cursor === undefined ? head : Number(row.min_cursor);
  return {
    head,
    subscriptions: row?.subscriptions ?? 0,
    failing: row?.failing ?? 0,
    max_lag: Math.max(0, head - minCursor),
  };
}
