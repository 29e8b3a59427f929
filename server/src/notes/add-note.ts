import { NoteKind } from "@svc/schemas";
import { AttemptAccess, readAttempt, requireActive } from "../attempts/read-attempt.ts";
import { inTransaction } from "../core/db/in-transaction.ts";
import type { Services } from "../core/services/services.ts";
import type { Caller } from "../users/caller.ts";
import { viewerOf } from "../visibility/viewer.ts";
import { insertNote } from "./insert-note.ts";
import type { Note } from "./note.ts";

/** add_note: a working note on the caller's active Attempt, under its row lock (end_attempt cannot slip in between). */
export async function addNote(
  services: Services,
  caller: Caller,
  input: { attempt_id: string; body_md: string },
): Promise<{ note: Note }> {
  const { sql, clock } = services;
  const viewer = viewerOf(caller.principal);
  return inTransaction(sql, async (tx) => {
    const { attempt } = await readAttempt(tx, viewer, input.attempt_id, {
      access: AttemptAccess.own,
      lock: true,
    });
    requireActive(attempt);
    return { note: await insertNote(tx, attempt, NoteKind.note, input.body_md, clock()) };
  });
}
