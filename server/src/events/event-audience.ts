import type { Sql } from "../core/db/connect-sql.ts";
import type { EventRow } from "./event-record.ts";

/**
 * Decides whether a user may see an event, when it is read or delivered. The log only stores
 * and pages; the rules belong to the domains that own what an event reports (a seat's standing
 * is the review engine's), so the caller supplies them (agents/event-visibility.ts).
 */
export type EventAudience = (sql: Sql, userId: string, event: EventRow) => Promise<boolean>;
