import { EntriesMode, EntryEventKind } from "@svc/schemas";
import type { Sql } from "../core/db/connect-sql.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import { type EntryEvent, latestNomination, readEntryEvents } from "../sealing/final-entry-events.ts";
import { readSealedRevision } from "../sealing/read-sealed-revision.ts";
import { isCutOff, selectionFreezesAt } from "../sealing/release-times.ts";
import type { Viewer } from "../visibility/viewer.ts";
import { notIndependentError } from "./nominate-final-entry.ts";

/** get_final_entry's input (spec 4.1). */
export interface GetFinalEntryInput {
  revision_id: string;
  limit: number;
  history_cursor?: string | undefined;
  nominations_cursor?: string | undefined;
}

/** get_final_entry's result (spec 4.1). */
export interface FinalEntryView {
  evaluation_id: string;
  cutoff: string | null;
  selection_freezes_at: string;
  frozen: boolean;
  /** `own` before the cutoff (managers aside), `all` after it. */
  visibility: "own" | "all";
  latest_nomination: EntryEvent | null;
  history: EntryEvent[];
  history_next_cursor: string | null;
  nominations: EntryEvent[];
  nominations_next_cursor: string | null;
}

const CURSOR = /^[0-9]{1,19}$/;

/**
 * get_final_entry: the caller's selection state and two pages of events on the revision's
 * evaluation: `history` (each Submission that entered it) and `nominations`, each with its own
 * cursor (the last event id shown). Before the cutoff only the caller's own events are visible;
 * after it everyone who can read the Problem sees all entries, since entries are no longer
 * private. The Problem's managers see all at any time, as they see all Submissions elsewhere.
 */
export async function getFinalEntry(
  sql: Sql,
  viewer: Viewer,
  input: GetFinalEntryInput,
  now: Date,
): Promise<FinalEntryView> {
  const found = await readSealedRevision(sql, viewer, input.revision_id, () =>
    notIndependentError(input.revision_id),
  );
  if (found.sealing.entries !== EntriesMode.independent) throw notIndependentError(input.revision_id);
  const all = found.manager || isCutOff(found.sealing, now);
  const freezesAt = selectionFreezesAt(found.sealing);
  const page = async (kind: EntryEventKind, cursor: string | undefined, field: string) => {
    if (cursor !== undefined && !CURSOR.test(cursor)) {
      throw new ServiceError(
        "invalid_input",
        `${field} must be an event id from an earlier page (digits only)`,
        {
          field,
        },
      );
    }
    const rows = await readEntryEvents(sql, {
      evaluationId: found.evaluationId,
      kind,
      ...(all ? {} : { userId: viewer.userId }),
      ...(cursor === undefined ? {} : { afterId: cursor }),
      limit: input.limit + 1,
    });
    const shown = rows.slice(0, input.limit);
    return { events: shown, next: rows.length > input.limit ? (shown.at(-1)?.id ?? null) : null };
  };
  const history = await page(EntryEventKind.entry, input.history_cursor, "history_cursor");
  const nominations = await page(EntryEventKind.nomination, input.nominations_cursor, "nominations_cursor");
  return {
    evaluation_id: found.evaluationId,
    cutoff: found.sealing.submission_closes_at,
    selection_freezes_at: freezesAt,
    frozen: now.getTime() >= Date.parse(freezesAt),
    visibility: all ? "all" : "own",
    latest_nomination: await latestNomination(sql, found.evaluationId, viewer.userId),
    history: history.events,
    history_next_cursor: history.next,
    nominations: nominations.events,
    nominations_next_cursor: nominations.next,
  };
}
