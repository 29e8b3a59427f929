import { problemReadHint } from "../attempts/attempt-hints.ts";
import {
  type AttemptSummary,
  type AttemptSummaryJson,
  attemptSummarySql,
  toAttemptSummary,
} from "../attempts/attempt-summary.ts";
import type { Services } from "../core/services/services.ts";
import { signedDownloads } from "../downloads/signed-download.ts";
import { type Problem, toProblem } from "../problems/problem.ts";
import {
  type ProblemRevision,
  type ProblemRevisionRow,
  toProblemRevision,
} from "../problems/problem-revision.ts";
import type { ProblemRow } from "../problems/problem-row.ts";
import {
  type ReferenceResourceEntry,
  referenceResourceEntries,
} from "../problems/reference-resource-entries.ts";
import { sealedSlots } from "../problems/sealed-slots.ts";
import { readProblemRevision } from "../sealing/read-problem-revision.ts";
import { readSubmissionAllowance } from "../sealing/read-submission-allowance.ts";
import type { SubmissionAllowance } from "../sealing/submission-allowance.ts";
import { type SkillResourceEntry, skillResourceEntries } from "../skills/skill-resource-entries.ts";
import type { Caller } from "../users/caller.ts";
import type { Viewer } from "../visibility/viewer.ts";

/** The get_problem envelope (spec 4.1). */
export interface ProblemEnvelope {
  problem: Problem;
  revision: ProblemRevision;
  skill_resources: SkillResourceEntry[];
  reference_resources: ReferenceResourceEntry[];
  /** The caller's own Attempts on this Problem (docs/solving.md); null only inside start_attempt. */
  attempt_summary: AttemptSummary | null;
  /** The caller's rolling quota on sealed work (spec 4.1); null for unsealed work. */
  submission_allowance: SubmissionAllowance | null;
  /**
   * Present when the caller has no active Attempt on an open Problem (call start_attempt), or
   * exactly one and the read did not name it (pass working_attempt_id).
   */
  hint?: string;
}

/**
 * get_problem: the Problem the viewer names (id or slug), one revision (the current one unless
 * `revision` names another), and the delivery entries for its skills and reference inputs with
 * signed 15-minute download links. `problem` and `revision` are the canonical objects; every URI
 * and link lives in the two resource lists.
 */
export async function getProblem(
  services: Services,
  caller: Caller,
  viewer: Viewer,
  input: { problem: string; revision?: number; working_attempt_id?: string },
): Promise<ProblemEnvelope> {
  const { sql, clock } = services;
  // The caller's attempt summary comes in the same statement as the Problem.
  const {
    problem: row,
    revision,
    also: summaryJson,
  } = await readProblemRevision<AttemptSummaryJson>(
    sql,
    viewer,
    input.problem,
    input.revision,
    attemptSummarySql(sql, viewer.userId, sql`p.id`),
  );
  const envelope = await problemEnvelope(services, caller, row, revision, clock());
  const summary = await toAttemptSummary(sql, { viewer, now: clock() }, summaryJson);
  envelope.attempt_summary = summary;
  envelope.submission_allowance = await readSubmissionAllowance(
    sql,
    viewer.userId,
    envelope.revision,
    row.owner_user_id,
    clock(),
  );
  const hint = problemReadHint(row, summary, input.working_attempt_id);
  if (hint) envelope.hint = hint;
  return envelope;
}

/**
 * The envelope of a Problem and one of its revisions already read with the caller's visibility
 * (readProblemRevision), without the caller's attempt summary or hint (start_attempt reuses it for
 * its resource lists).
 */
export async function problemEnvelope(
  services: Services,
  caller: Pick<Caller, "baseUrl">,
  row: ProblemRow,
  revisionRow: ProblemRevisionRow,
  now: Date,
): Promise<ProblemEnvelope> {
  const { sql, blobs } = services;
  const revision = toProblemRevision(revisionRow);
  const sign = signedDownloads(services, caller);
  const envelope: ProblemEnvelope = {
    problem: toProblem(row),
    revision,
    skill_resources: await skillResourceEntries(sql, blobs, revision.skill_refs, sign),
    reference_resources: await referenceResourceEntries(
      blobs,
      revision,
      await sealedSlots(sql, revision.verifier_contract_id),
      now,
      sign,
    ),
    attempt_summary: null,
    submission_allowance: null,
  };
  return envelope;
}
