import type { Sql } from "../core/db/connect-sql.ts";
import type { ReferenceBinding } from "../problems/problem-revision.ts";
import { evaluationIdFor } from "./read-sealing.ts";

/** A revision of an evaluation, as the release tools list it. */
export interface EvaluationRevision {
  problem_revision_id: string;
  problem_id: string;
  revision_number: number;
}

/**
 * Every revision of the evaluation, ordered by Problem and number: those whose stored sealing
 * names it, and those written before evaluation ids were stored whose derived id matches. The
 * latter can only share an evaluation with the owner's own sealed revisions (the owner is part of
 * the id), so only those are derived.
 */
export async function evaluationRevisions(
  sql: Sql,
  evaluationId: string,
  ownerUserId: string,
): Promise<EvaluationRevision[]> {
  const rows = await sql<
    (EvaluationRevision & {
      stored: string | null;
      sealing: Record<string, unknown>;
      verifier_contract_id: string | null;
      verifier_input_bindings: ReferenceBinding[];
    })[]
  >`
    select pr.id as problem_revision_id, pr.problem_id, pr.revision_number, pr.sealing ->> 'evaluation_id' as stored,
      pr.sealing, pr.verifier_contract_id, pr.verifier_input_bindings
    from problem_revisions pr join problems p on p.id = pr.problem_id
    where pr.sealing is not null
      and (pr.sealing ->> 'evaluation_id' = ${evaluationId}
        or (pr.sealing ->> 'evaluation_id' is null and p.owner_user_id = ${ownerUserId}))
    order by pr.problem_id, pr.revision_number`;
  const members: EvaluationRevision[] = [];
  for (const row of rows) {
    const id = row.stored ?? (await evaluationIdFor(sql, row, ownerUserId));
    if (id === evaluationId) {
      members.push({
        problem_revision_id: row.problem_revision_id,
        problem_id: row.problem_id,
        revision_number: row.revision_number,
      });
    }
  }
  return members;
}
