import { IdPrefix, idPattern } from "@svc/schemas";
import { AttemptAccess, readAttempt } from "../attempts/read-attempt.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import type { Services } from "../core/services/services.ts";
import type { Caller } from "../users/caller.ts";
import { viewerOf } from "../visibility/viewer.ts";
import { NOTE_COLUMNS, type Note, type NoteRow, toNote } from "./note.ts";

const NOTE_ID = idPattern(IdPrefix.note);

/**
 * get_note: one Note, readable by whoever may read its Attempt (its author, and the Problem's
 * managers); someone else's note on a Problem the caller sees is `not_yours`.
 */
export async function getNote(
  services: Services,
  caller: Caller,
  input: { note_id: string },
): Promise<{ note: Note }> {
  const { sql } = services;
  const [row] = NOTE_ID.test(input.note_id)
    ? await sql<NoteRow[]>`select ${sql.unsafe(NOTE_COLUMNS)} from notes n where n.id = ${input.note_id}`
    : [];
  const notFound = () =>
    new ServiceError(
      "not_found",
      `no note ${input.note_id} is visible to you: search_notes finds your notes`,
      {
        field: "note_id",
        note_id: input.note_id,
      },
    );
  if (!row) throw notFound();
  try {
    await readAttempt(sql, viewerOf(caller.principal), row.attempt_id, { access: AttemptAccess.read });
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    if (error.code === "not_yours") {
      throw new ServiceError("not_yours", `note ${input.note_id} belongs to another user's Attempt`, {
        field: "note_id",
        note_id: input.note_id,
      });
    }
    throw notFound();
  }
  return { note: toNote(row) };
}
