import { IdPrefix, type NoteKind } from "@svc/schemas";
import type { AttemptRow } from "../attempts/attempt.ts";
import type { Sql } from "../core/db/connect-sql.ts";
import { randomId } from "../core/ids/random-id.ts";
import { NOTE_COLUMNS, type Note, type NoteRow, toNote } from "./note.ts";

/** Inserts a note on an Attempt the caller already checked (theirs, active or ending now). */
export async function insertNote(
  sql: Sql,
  attempt: Pick<AttemptRow, "id" | "user_id" | "problem_id">,
  kind: NoteKind,
  bodyMd: string,
  now: Date,
): Promise<Note> {
  const [row] = await sql<NoteRow[]>`
    insert into notes as n (id, attempt_id, user_id, problem_id, kind, body_md, created_at)
    values (${randomId(IdPrefix.note)}, ${attempt.id}, ${attempt.user_id}, ${attempt.problem_id}, ${kind},
      ${bodyMd}, ${now})
    returning ${sql.unsafe(NOTE_COLUMNS)}`;
  return toNote(row!);
}
