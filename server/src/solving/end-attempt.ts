import { type AttemptOutcome, NoteKind } from "@svc/schemas";
import { type Attempt, toAttempt } from "../attempts/attempt.ts";
import { findAttempt } from "../attempts/find-attempt.ts";
import { AttemptAccess, readAttempt, requireActive } from "../attempts/read-attempt.ts";
import { inTransaction } from "../core/db/in-transaction.ts";
import type { Services } from "../core/services/services.ts";
import { insertNote } from "../notes/insert-note.ts";
import type { Note } from "../notes/note.ts";
import type { Caller } from "../users/caller.ts";
import { viewerOf } from "../visibility/viewer.ts";

/**
 * end_attempt (spec 4.1): ends the caller's active Attempt with an outcome and its summary note,
 * in one transaction under the Attempt's row lock, so the note and the end exist together and a
 * concurrent write either lands before the end or is refused after it. Ending twice is
 * `attempt_ended` (the database keeps `ended_at` write-once as well).
 */
export async function endAttempt(
  services: Services,
  caller: Caller,
  input: { attempt_id: string; outcome: AttemptOutcome; note_md: string },
): Promise<{ attempt: Attempt; note: Note }> {
  const { sql, clock } = services;
  const viewer = viewerOf(caller.principal);
  return inTransaction(sql, async (tx) => {
    const { attempt } = await readAttempt(tx, viewer, input.attempt_id, {
      access: AttemptAccess.own,
      lock: true,
    });
    requireActive(attempt);
    // After the lock: writes that held the lock before the end carry earlier times.
    const now = clock();
    const note = await insertNote(tx, attempt, NoteKind.summary, input.note_md, now);
    await tx`
      update attempts set status = 'ended', outcome = ${input.outcome}, ended_at = ${now} where id = ${attempt.id}`;
    return { attempt: toAttempt((await findAttempt(tx, attempt.id))!), note };
  });
}
