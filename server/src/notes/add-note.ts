import { AttemptAccess, readAttempt, requireActive } from "../attempts/read-attempt.ts";
import { inTransaction } from "../db/in-transaction.ts";
import type { ToolContext } from "../tools/tool.ts";
import { viewerOf } from "../work/viewer.ts";
import { insertNote } from "./insert-note.ts";
import { type Note, NoteKind } from "./note.ts";

/** add_note: a working note on the caller's active Attempt, under its row lock (end_attempt cannot slip in between). */
export async function addNote(
  context: ToolContext,
  input: { attempt_id: string; body_md: string },
): Promise<{ note: Note }> {
  const { sql, clock } = context.services;
  const viewer = viewerOf(context.principal);
  return inTransaction(sql, async (tx) => {
    const { attempt } = await readAttempt(tx, viewer, input.attempt_id, {
      access: AttemptAccess.own,
      lock: true,
    });
    requireActive(attempt);
    return { note: await insertNote(tx, attempt, NoteKind.note, input.body_md, clock()) };
  });
}
