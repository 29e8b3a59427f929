import type { Sql } from "../core/db/connect-sql.ts";
import type { ReferenceBinding } from "../problems/problem-revision.ts";
import { sealedSlots } from "../problems/sealed-slots.ts";
import { evaluationIdOf } from "./evaluation-id.ts";
import { mergeReleaseState, type ReleaseState, type SealingPolicy } from "./sealing-policy.ts";

/** What reading a revision's effective sealing needs. */
export interface SealedRevisionFacts {
  sealing: Record<string, unknown> | null;
  verifier_contract_id: string | null;
  verifier_input_bindings: readonly ReferenceBinding[];
}

/**
 * The evaluation id of a revision: the one stored at publication, else (revisions written before
 * evaluations existed) derived the same way from its sealed bindings and its Problem's owner.
 */
export async function evaluationIdFor(
  sql: Sql,
  revision: SealedRevisionFacts,
  ownerUserId: string,
): Promise<string | null> {
  if (revision.sealing === null) return null;
  const stored = revision.sealing.evaluation_id;
  if (typeof stored === "string") return stored;
  const sealed = await sealedSlots(sql, revision.verifier_contract_id);
  return evaluationIdOf(
    revision.verifier_input_bindings.filter((b) => sealed.has(b.key) && b.url === undefined),
    [ownerUserId],
  );
}

/** The release state of one evaluation; null when nothing was recorded for it. */
export async function readReleaseState(sql: Sql, evaluationId: string): Promise<ReleaseState | null> {
  const [row] = await sql<{ unsealed_at: Date | null; release_event: ReleaseState["release_event"] }[]>`
    select unsealed_at, release_event from sealed_evaluations where evaluation_id = ${evaluationId}`;
  return row
    ? { unsealed_at: row.unsealed_at?.toISOString() ?? null, release_event: row.release_event }
    : null;
}

/**
 * A revision's sealing as every read shows it: the immutable stored policy with the evaluation id
 * and the evaluation's release state merged in (problem_revisions never changes, so an early
 * release lives in sealed_evaluations). Null for a revision without sealing.
 */
export async function readSealing(
  sql: Sql,
  revision: SealedRevisionFacts,
  ownerUserId: string,
): Promise<SealingPolicy | null> {
  if (revision.sealing === null) return null;
  const evaluationId = await evaluationIdFor(sql, revision, ownerUserId);
  const state = evaluationId === null ? null : await readReleaseState(sql, evaluationId);
  return mergeReleaseState(revision.sealing, evaluationId, state);
}

/** A revision row with its sealing replaced by the effective one (readSealing). */
export async function withEffectiveSealing<Row extends SealedRevisionFacts>(
  sql: Sql,
  row: Row,
  ownerUserId: string,
): Promise<Row> {
  if (row.sealing === null) return row;
  const sealing = await readSealing(sql, row, ownerUserId);
  return { ...row, sealing: sealing as unknown as Row["sealing"] };
}
