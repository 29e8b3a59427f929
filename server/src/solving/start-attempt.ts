import { IdPrefix } from "@svc/schemas";
import { type Attempt, toAttempt } from "../attempts/attempt.ts";
import { alreadyContinued, continuationRefusal } from "../attempts/continuation-refusal.ts";
import { findAttempt } from "../attempts/find-attempt.ts";
import type { Sql } from "../core/db/connect-sql.ts";
import { inTransaction } from "../core/db/in-transaction.ts";
import { isUniqueViolation } from "../core/db/is-unique-violation.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import { randomId } from "../core/ids/random-id.ts";
import type { Services } from "../core/services/services.ts";
import { problemEnvelope } from "../discovery/get-problem.ts";
import { findOrganization, requireMembership } from "../organizations/organization.ts";
import { findProblem } from "../problems/find-problem.ts";
import type { ProblemRow } from "../problems/problem-row.ts";
import { readProblem } from "../problems/read-problem.ts";
import type { ReferenceResourceEntry } from "../problems/reference-resource-entries.ts";
import { findRevision } from "../sealing/find-revision.ts";
import type { SkillResourceEntry } from "../skills/skill-resource-entries.ts";
import { readContractTerms } from "../submissions/submission-requirements.ts";
import type { Caller } from "../users/caller.ts";
import { runWaiting } from "../verification/run-waiting.ts";
import { type Viewer, viewerOf } from "../visibility/viewer.ts";
import { canReadWork } from "../visibility/work-access.ts";
import { attemptContinues, type Continues } from "./attempt-continues.ts";
import { nextSteps } from "./next-steps.ts";
import { withWorkingAttempt } from "./with-working-attempt.ts";

export interface StartAttemptInput {
  problem: string;
  revision?: number;
  continues_attempt_id?: string;
  /** The Organization (slug or `org_` id) the Attempt is attributed to; the caller must be a member. */
  organization?: string;
}

/** start_attempt's result (decisions.md). */
export interface StartedAttempt {
  attempt: Attempt;
  continues: Continues | null;
  next_steps: string[];
  skill_resources: SkillResourceEntry[];
  reference_resources: ReferenceResourceEntry[];
  /** Present when the caller already had active Attempts on this Problem. */
  hint?: string;
  /** The caller's other active Attempts on this Problem, newest first, when there are any. */
  other_active_attempts?: string[];
  /** How to wait for the verification run of a submission (poll, or be woken by an event). */
  waiting_for_runs: typeof runWaiting;
}

/**
 * start_attempt (spec 4.1): a new active Attempt of the caller on a Problem they can see and that
 * is open, pinned to the named revision (default the current one). With `continues_attempt_id` it
 * continues an ended Attempt of theirs on the same Problem that has no continuation yet; the
 * refusals are spec 7's codes, and a race for the same predecessor loses with already_continued
 * (the column is unique). Several active Attempts per user and Problem are allowed (separate lines
 * of work); the result hints when others are active. With `organization` the Attempt is
 * attributed to an Organization the caller belongs to (not_a_member otherwise), for review
 * conflicts and eligibility (spec 2.1).
 */
export async function startAttempt(
  services: Services,
  caller: Caller,
  input: StartAttemptInput,
): Promise<StartedAttempt> {
  const { sql, clock } = services;
  const viewer = viewerOf(caller.principal);
  const problem = await readProblem(sql, viewer, input.problem);
  if (problem.status !== "open") {
    throw new ServiceError(
      "problem_archived",
      `problem ${problem.slug} is archived and takes no new Attempts: search_problems finds open ones`,
      { field: "problem", problem_id: problem.id },
    );
  }
  // Attribution is recorded at start and never changes; only a current member may claim it.
  const organizationId =
    input.organization === undefined
      ? null
      : await attributedOrganization(sql, viewer.userId, input.organization);
  const now = clock();
  // The revision must exist before anything is written.
  const revision = await findRevision(sql, problem, input.revision);
  const envelope = await problemEnvelope(services, caller, problem, revision, now);
  const { attempt, predecessor } = await inTransaction(sql, async (tx) => {
    const predecessor =
      input.continues_attempt_id === undefined
        ? null
        : await lockPredecessor(tx, viewer, input.continues_attempt_id, problem);
    const id = randomId(IdPrefix.attempt);
    try {
      await tx.savepoint(
        (sp) => sp`
        insert into attempts (id, problem_id, problem_revision_id, user_id, organization_id, continues_attempt_id, started_at)
        values (${id}, ${problem.id}, ${envelope.revision.id}, ${viewer.userId}, ${organizationId}, ${predecessor?.id ?? null}, ${now})`,
      );
    } catch (error) {
      if (predecessor && isUniqueViolation(error, "attempts_continues_attempt_id_key")) {
        const again = await findAttempt(tx, predecessor.id);
        throw alreadyContinued(predecessor, again?.continued_by_attempt_id ?? "unknown");
      }
      throw error;
    }
    return { attempt: (await findAttempt(tx, id))!, predecessor };
  });
  const continues = predecessor ? await attemptContinues(sql, predecessor, { viewer, now }) : null;
  const terms = await readContractTerms(sql, envelope.revision.verifier_contract_id);
  const lists = withWorkingAttempt(envelope, attempt.id);
  const result: StartedAttempt = {
    attempt: toAttempt(attempt),
    continues,
    next_steps: nextSteps(attempt.id, terms, continues),
    skill_resources: lists.skill_resources,
    reference_resources: lists.reference_resources,
    waiting_for_runs: runWaiting,
  };
  const others = await otherActiveAttempts(sql, viewer.userId, problem.id, attempt.id);
  if (others.length > 0) {
    result.hint = `You have ${others.length} other active Attempt${others.length === 1 ? "" : "s"} on ${problem.slug} (${others.join(", ")}): keep working in one of them, or end those you no longer work on with end_attempt.`;
    result.other_active_attempts = others;
  }
  return result;
}

/**
 * The Attempt to continue, locked, or the refusal. Locking it makes the checks and the insert
 * one step against a concurrent end or continuation.
 */
async function lockPredecessor(sql: Sql, viewer: Viewer, id: string, problem: ProblemRow) {
  const found = await findAttempt(sql, id, { lock: true });
  // An Attempt on a Problem the caller cannot see is as unknown as a missing one.
  const other = found && found.problem_id !== problem.id ? await findProblem(sql, found.problem_id) : null;
  const visible =
    found && (found.problem_id === problem.id || (other !== null && canReadWork(viewer, other)));
  const refusal = continuationRefusal(viewer, id, visible ? found : null, problem.id);
  if (refusal) throw refusal;
  return found!;
}

/** The id of the Organization an Attempt is attributed to; not_found or not_a_member otherwise. */
async function attributedOrganization(sql: Sql, userId: string, slugOrId: string): Promise<string> {
  const organization = await findOrganization(sql, slugOrId);
  await requireMembership(sql, organization, userId);
  return organization.id;
}

async function otherActiveAttempts(
  sql: Sql,
  userId: string,
  problemId: string,
  except: string,
): Promise<string[]> {
  const rows = await sql<{ id: string }[]>`
    select id from attempts where user_id = ${userId} and problem_id = ${problemId} and status = 'active'
      and id <> ${except} order by started_at desc`;
  return rows.map((row) => row.id);
}
