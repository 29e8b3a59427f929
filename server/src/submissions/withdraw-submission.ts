import { inTransaction } from "../core/db/in-transaction.ts";
import type { Services } from "../core/services/services.ts";
import type { Caller } from "../users/caller.ts";
import { viewerOf } from "../visibility/viewer.ts";
import { readSubmission } from "./read-submission.ts";
import { readSubmissions } from "./read-submissions.ts";
import type { Submission } from "./submission.ts";

/**
 * withdraw_submission: the caller takes back a Submission, for good (write-once in the database).
 * Withdrawing again returns it unchanged. Its VerificationRuns are left as they are: whether a
 * queued run of a withdrawn Submission still executes is the verification worker's decision (it
 * reads `submissions.status`). Withdrawn Submissions still count against sealed quotas (spec 2.3).
 * The Attempt may have ended: withdrawing is allowed after the end.
 */
export async function withdrawSubmission(
  services: Services,
  caller: Caller,
  input: { submission_id: string },
): Promise<{ submission: Submission }> {
  const { sql, clock } = services;
  const viewer = viewerOf(caller.principal);
  const submission = await readSubmission(sql, viewer, input.submission_id, "own", clock());
  await inTransaction(sql, async (tx) => {
    await tx`
      update submissions set status = 'withdrawn', withdrawn_at = ${clock()}
      where id = ${submission.id} and status = 'active'`;
  });
  const [current] = await readSubmissions(sql, { id: submission.id }, { viewer, now: clock() });
  return { submission: current! };
}
