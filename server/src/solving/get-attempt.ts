import type { Artifact } from "../artifacts/artifact.ts";
import { attemptArtifacts } from "../artifacts/list-artifacts.ts";
import { type Attempt, toAttempt } from "../attempts/attempt.ts";
import { AttemptAccess, readAttempt } from "../attempts/read-attempt.ts";
import type { Services } from "../core/services/services.ts";
import { NOTE_COLUMNS, type Note, type NoteRow, toNote } from "../notes/note.ts";
import { readSubmissions } from "../submissions/read-submissions.ts";
import type { Submission } from "../submissions/submission.ts";
import type { Caller } from "../users/caller.ts";
import { viewerOf } from "../visibility/viewer.ts";

/** get_attempt's record: the Attempt with counts and what it holds. */
export type AttemptDetail = Attempt & {
  notes_count: number;
  summary_note: Note | null;
  artifacts: Artifact[];
  submissions: Submission[];
};

/**
 * get_attempt: one Attempt of the caller (or, for the Problem's managers, anyone's) with its
 * note count, summary note, Artifacts and a summary of each Submission with its latest run.
 */
export async function getAttempt(
  services: Services,
  caller: Caller,
  input: { attempt_id: string },
): Promise<{ attempt: AttemptDetail }> {
  const { sql } = services;
  const viewer = viewerOf(caller.principal);
  const { attempt } = await readAttempt(sql, viewer, input.attempt_id, { access: AttemptAccess.read });
  const [counts] = await sql<{ notes: number }[]>`
    select count(*)::int as notes from notes where attempt_id = ${attempt.id}`;
  const [summary] = await sql<NoteRow[]>`
    select ${sql.unsafe(NOTE_COLUMNS)} from notes n where n.attempt_id = ${attempt.id} and n.kind = 'summary'
    order by n.created_at desc limit 1`;
  return {
    attempt: {
      ...toAttempt(attempt),
      notes_count: counts?.notes ?? 0,
      summary_note: summary ? toNote(summary) : null,
      artifacts: await attemptArtifacts(sql, services, caller, viewer, attempt.id),
      submissions: await readSubmissions(sql, { attemptId: attempt.id }, { viewer, now: services.clock() }),
    },
  };
}
