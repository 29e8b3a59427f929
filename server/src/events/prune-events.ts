import type { Services } from "../core/services/services.ts";
import { settleEvents } from "./settle-events.ts";

/** How long events are kept unless SVC_EVENT_RETENTION_DAYS says otherwise. */
export const DEFAULT_EVENT_RETENTION_DAYS = 30;
/** Rows deleted per statement, so pruning never holds long locks. */
const BATCH = 5000;
const DAY_MS = 86_400_000;

/**
 * The prune_events task (hourly): deletes the events that occurred more than the retention
 * period ago, with their delivery-log rows, but none at or after the lowest cursor of a live
 * subscription, so nothing a live subscription has not yet delivered is lost. A cursor older
 * than the oldest kept event then resumes at it. Returns how many events it deleted.
 */
export async function pruneEvents(services: Services): Promise<number> {
  const days = services.eventRetentionDays ?? DEFAULT_EVENT_RETENTION_DAYS;
  const cutoff = new Date(services.clock().getTime() - days * DAY_MS);
  let deleted = 0;
  // Events nobody read for a while wait in pending_events: settled, they age out like the others.
  await settleEvents(services.sql);
  for (;;) {
    const count = await services.sql.begin(async (tx) => {
      const doomed = await tx<{ id: string }[]>`
        select id::text as id from events
        where occurred_at < ${cutoff}
          and id <= coalesce((select min(cursor) from event_subscriptions where ended_at is null), 9223372036854775807)
        order by id limit ${BATCH}`;
      if (doomed.length === 0) return 0;
      const ids = doomed.map((row) => row.id);
      await tx`delete from event_deliveries where event_id = any(${ids}::bigint[])`;
      await tx`delete from events where id = any(${ids}::bigint[])`;
      return ids.length;
    });
    deleted += count;
    if (count < BATCH) return deleted;
  }
}
