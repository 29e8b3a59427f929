import type { EventKind } from "@svc/schemas";

/** One row of the event log. */
export interface EventRow {
  /** bigint as the driver returns it: a decimal string. */
  id: string;
  kind: EventKind;
  occurred_at: Date;
  audience_user_id: string | null;
  problem_id: string | null;
  review_process_id: string | null;
  node_id: string | null;
  data: Record<string, unknown>;
}

export const EVENT_COLUMNS =
  "id::text as id, kind, occurred_at, audience_user_id, problem_id, review_process_id, node_id, data";

/** An event as agents see it (events/list, webhook bodies): no audience columns. */
export interface EventView {
  id: string;
  kind: EventKind;
  occurred_at: string;
  data: Record<string, unknown>;
}

export function eventView(row: EventRow): EventView {
  return { id: row.id, kind: row.kind, occurred_at: row.occurred_at.toISOString(), data: row.data };
}
