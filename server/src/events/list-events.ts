import type { EventKind } from "@svc/schemas";
import type { Pool } from "../core/db/connect-sql.ts";
import { sequencePosition } from "../core/paging/sequence-cursor.ts";
import type { EventAudience } from "./event-audience.ts";
import { EVENT_COLUMNS, type EventRow, type EventView, eventView } from "./event-record.ts";
import { settleEvents } from "./settle-events.ts";

/** events/list's parameters, validated. */
export interface ListEventsInput {
  cursor?: string | undefined;
  kinds?: readonly EventKind[] | undefined;
  limit: number;
}

/** A page of events: the visible ones, the cursor to resume from, and whether more follow. */
export interface EventPage {
  events: EventView[];
  next_cursor: string;
  has_more: boolean;
}

/** How many rows one page examines at most, visible or not, so a page's cost is bounded. */
const SCAN_CEILING = 500;

/** The position a cursor names: the id of the last event examined, a decimal string. */
export function cursorPosition(cursor: string | undefined): string {
  if (cursor === undefined) return "0";
  return sequencePosition(
    cursor,
    "an event id as a decimal string (a next_cursor of events/list); omit it to start from the first event",
  );
}

/**
 * events/list: the events after `cursor` that `userId` may see, in id order. Personal events
 * are filtered in SQL; the others go through `audience`. `next_cursor` is the last id examined,
 * not the last one returned, so a subscriber filtered out of a run of events does not rescan it;
 * a page may therefore be short, or empty with `has_more`. It settles the log first, so every
 * event committed before the call is there.
 */
export async function listEvents(
  sql: Pool,
  userId: string,
  input: ListEventsInput,
  audience: EventAudience,
): Promise<EventPage> {
  const after = cursorPosition(input.cursor);
  await settleEvents(sql);
  const kinds = input.kinds && input.kinds.length > 0 ? [...input.kinds] : null;
  const scan = Math.min(SCAN_CEILING, Math.max(input.limit * 4, input.limit));
  const rows = await sql<EventRow[]>`
    select ${sql.unsafe(EVENT_COLUMNS)} from events
    where id > ${after}::bigint
      and (audience_user_id is null or audience_user_id = ${userId})
      ${kinds ? sql`and kind = any(${kinds})` : sql``}
    order by events.id limit ${scan + 1}`;
  const events: EventView[] = [];
  let last = after;
  let examined = 0;
  for (const row of rows.slice(0, scan)) {
    if (events.length >= input.limit) break;
    examined++;
    last = row.id;
    if (row.audience_user_id === userId || (await audience(sql, userId, row))) events.push(eventView(row));
  }
  return { events, next_cursor: last, has_more: rows.length > examined };
}
