import type postgres from "postgres";
import type { Pool } from "../../../src/core/db/connect-sql.ts";
import { appendEvent, type NewEvent } from "../../../src/events/append-event.ts";
import { settleEvents } from "../../../src/events/settle-events.ts";

/**
 * Commits `event` in a transaction of its own, as a change would, settles the log and returns the
 * event's log id: the newest event like it (the tests that use it write one event at a time).
 */
export async function commitEvent(sql: Pool, event: NewEvent): Promise<string> {
  await sql.begin((tx) => appendEvent(tx, event));
  await settleEvents(sql);
  const [row] = await sql<{ id: string }[]>`
    select id::text as id from events
    where kind = ${event.kind} and audience_user_id is not distinct from ${event.audienceUserId}
      and data = ${sql.json(event.data as postgres.JSONValue)}
    order by events.id desc limit 1`;
  if (!row) throw new Error(`the event ${JSON.stringify(event.data)} is not in the log after a settle`);
  return row.id;
}
