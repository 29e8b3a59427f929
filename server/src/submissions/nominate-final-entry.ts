import { EntriesMode } from "@svc/schemas";
import type { Sql } from "../core/db/connect-sql.ts";
import { inTransaction } from "../core/db/in-transaction.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import { type EntryEvent, latestNomination, recordNomination } from "../sealing/final-entry-events.ts";
import { lockQuota } from "../sealing/read-quota-usage.ts";
import { readSealedRevision } from "../sealing/read-sealed-revision.ts";
import { selectionFreezesAt } from "../sealing/release-times.ts";
import type { Viewer } from "../visibility/viewer.ts";
import { readSubmission } from "./read-submission.ts";

/** The refusal for final-entry tools on work without independent entries. */
export function notIndependentError(revisionId: string): ServiceError {
  return new ServiceError(
    "final_entry_not_applicable",
    `revision ${revisionId} is not a sealed evaluation with independent entries, so it takes no final entries`,
    { revision_id: revisionId },
  );
}

/**
 * nominate_final_entry (spec 4.1, 6.3): selects or replaces the caller's final Submission on an
 * independent evaluation until selection freezes (the cutoff or the label release, whichever
 * comes first). Naming the current selection again is a no-op (`changed: false`, no event); each
 * change is an immutable nomination event. Withdrawn Submissions cannot be nominated.
 */
export async function nominateFinalEntry(
  sql: Sql,
  viewer: Viewer,
  submissionId: string,
  now: () => Date,
): Promise<{ nomination: EntryEvent; changed: boolean }> {
  return await inTransaction(sql, async (tx) => {
    const submission = await readSubmission(tx, viewer, submissionId, "own", now());
    const found = await readSealedRevision(tx, viewer, submission.problem_revision_id, () =>
      notIndependentError(submission.problem_revision_id),
    );
    if (found.sealing.entries !== EntriesMode.independent) throw notIndependentError(found.revision.id);
    // One decision at a time per user and evaluation, shared with create_submission's quota lock.
    await lockQuota(tx, viewer.userId, found.evaluationId);
    const at = now();
    const freezesAt = selectionFreezesAt(found.sealing);
    if (at.getTime() >= Date.parse(freezesAt)) {
      throw new ServiceError(
        "final_entry_frozen",
        `final-entry selection for evaluation ${found.evaluationId} froze at ${freezesAt} (the cutoff or the label release, whichever came first)`,
        { evaluation_id: found.evaluationId, selection_freezes_at: freezesAt },
      );
    }
    if (submission.status === "withdrawn") {
      throw new ServiceError(
        "invalid_input",
        `submission ${submissionId} is withdrawn and cannot be your final entry: nominate an active one`,
        { field: "submission_id", submission_id: submissionId },
      );
    }
    const latest = await latestNomination(tx, found.evaluationId, viewer.userId);
    if (latest?.submission_id === submissionId) return { nomination: latest, changed: false };
    const nomination = await recordNomination(tx, {
      evaluationId: found.evaluationId,
      revisionId: found.revision.id,
      userId: viewer.userId,
      submissionId,
      now: at,
    });
    return { nomination, changed: true };
  });
}
