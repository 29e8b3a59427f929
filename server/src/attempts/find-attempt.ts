import { IdPrefix, idPattern } from "@svc/schemas";
import type { Sql } from "../core/db/connect-sql.ts";
import {
  type ProblemRow,
  type ProblemRowJson,
  problemColumnsSql,
  problemRowOfJson,
} from "../problems/problem-row.ts";
import type { SealedRevisionFacts } from "../sealing/read-sealing.ts";
import { ATTEMPT_COLUMNS, type AttemptRow } from "./attempt.ts";

/** An Attempt id: `att_` and 10 to 32 characters of [0-9a-z]. */
export const ATTEMPT_ID = idPattern(IdPrefix.attempt);

/**
 * The Attempt with this id whoever owns it, or null. `lock` takes the row lock (inside a
 * transaction), so a write that checks the Attempt is active cannot race `end_attempt`.
 */
export async function findAttempt(
  sql: Sql,
  id: string,
  options: { lock?: boolean } = {},
): Promise<AttemptRow | null> {
  if (!ATTEMPT_ID.test(id)) return null;
  const [row] = await sql<AttemptRow[]>`
    select ${sql.unsafe(ATTEMPT_COLUMNS)} from attempts a where a.id = ${id}
    ${options.lock ? sql`for update of a` : sql``}`;
  return row ?? null;
}

/** The facts of an Attempt's pinned revision that a Submission needs (findAttemptAndProblem's `revision`). */
export interface AttemptRevision extends SealedRevisionFacts {
  id: string;
}

/**
 * findAttempt and its Problem (findProblem's row) in one round trip, or null when there is no
 * such Attempt. `lock` locks the Attempt row only. `revision` also reads the facts of the
 * Attempt's pinned revision that a Submission needs (its Contract, bindings and sealing).
 */
export async function findAttemptAndProblem(
  sql: Sql,
  id: string,
  options: { lock?: boolean; revision?: boolean } = {},
): Promise<{ attempt: AttemptRow; problem: ProblemRow | null; revision: AttemptRevision | null } | null> {
  if (!ATTEMPT_ID.test(id)) return null;
  const [row] = await sql<
    (AttemptRow & { problem_json: ProblemRowJson | null; revision_json: AttemptRevision | null })[]
  >`
    select ${sql.unsafe(ATTEMPT_COLUMNS)}, (
      select to_jsonb(pr) from (
        select ${problemColumnsSql(sql)}
        from problems p left join campaigns c on c.id = p.campaign_id
        where p.id = a.problem_id) pr
    ) as problem_json,
    ${
      options.revision
        ? sql`(select to_jsonb(r) from (
            select id, verifier_contract_id, verifier_input_bindings, sealing
            from problem_revisions where id = a.problem_revision_id) r)`
        : sql`null::jsonb`
    } as revision_json
    from attempts a where a.id = ${id}
    ${options.lock ? sql`for update of a` : sql``}`;
  if (!row) return null;
  const { problem_json, revision_json, ...attempt } = row;
  return {
    attempt,
    problem: problem_json === null ? null : problemRowOfJson(problem_json),
    revision: revision_json,
  };
}
