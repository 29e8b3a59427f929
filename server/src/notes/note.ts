import type { NoteKind } from "@svc/schemas";

/**
 * A Note is Markdown a participant writes on their own Attempt: working notes (`note`) while it
 * is active, and the one `summary` end_attempt requires. Notes are append-only.
 */

/** The longest note body, in characters (the table's check). */
export const MAX_NOTE_CHARS = 20000;

/** A `notes` row. */
export interface NoteRow {
  id: string;
  attempt_id: string;
  user_id: string;
  problem_id: string;
  kind: NoteKind;
  body_md: string;
  created_at: Date;
}

/** The Note record as tools return it. */
export interface Note {
  id: string;
  attempt_id: string;
  user_id: string;
  problem_id: string;
  kind: NoteKind;
  body_md: string;
  created_at: string;
}

/** The select list of {@link NoteRow} over `notes n`. */
export const NOTE_COLUMNS = "n.id, n.attempt_id, n.user_id, n.problem_id, n.kind, n.body_md, n.created_at";

export function toNote(row: NoteRow): Note {
  return {
    id: row.id,
    attempt_id: row.attempt_id,
    user_id: row.user_id,
    problem_id: row.problem_id,
    kind: row.kind,
    body_md: row.body_md,
    created_at: row.created_at.toISOString(),
  };
}
