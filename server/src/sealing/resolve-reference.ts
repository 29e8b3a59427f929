import { IdPrefix, idPattern } from "@svc/schemas";
import type { Sql } from "../core/db/connect-sql.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import { findProblem } from "../problems/find-problem.ts";
import type { ProblemRevisionRow, ReferenceBinding } from "../problems/problem-revision.ts";
import type { ProblemRow } from "../problems/problem-row.ts";
import { type ReferenceSeal, referenceSeal } from "../problems/reference-seal.ts";
import { sealedSlots } from "../problems/sealed-slots.ts";
import type { Viewer } from "../visibility/viewer.ts";
import { canManageWork, canReadWork } from "../visibility/work-access.ts";
import { withEffectiveSealing } from "./read-sealing.ts";

/** One reference binding the viewer may read, with what its readers need to serve it. */
export interface ResolvedReference {
  problem: ProblemRow;
  revision: ProblemRevisionRow;
  binding: ReferenceBinding;
  seal: ReferenceSeal;
  /** The viewer is the Problem's owner or an administrator. */
  manager: boolean;
}

/**
 * The binding `key` of revision `revisionId`, for every reader of reference bytes (the resource,
 * `GET /api/problem-revisions/...` and `/dl/`). not_found when the revision, its Problem (for
 * this viewer) or the key does not exist; `sealed` when the bytes are withheld and the viewer
 * does not manage the Problem (spec 5.7). `viewer` null is an anonymous signed-link holder.
 */
export async function resolveReference(
  sql: Sql,
  viewer: Viewer | null,
  revisionId: string,
  key: string,
  now: Date,
): Promise<ResolvedReference> {
  const found = await loadReference(sql, revisionId, key, now);
  if (!found || !canReadWork(viewer, found.problem)) {
    throw new ServiceError(
      "not_found",
      `no reference input "${key}" is bound in problem revision "${revisionId}"`,
      {
        problem_revision_id: revisionId,
        key,
      },
    );
  }
  const manager = canManageWork(viewer, found.problem);
  if (found.seal.sealed && !manager) throw sealedError(revisionId, key, found.seal.sealed_until);
  return { ...found, manager };
}

/** The `sealed` error for a read of withheld bytes. */
export function sealedError(revisionId: string, key: string, sealedUntil: string | null): ServiceError {
  return new ServiceError(
    "sealed",
    `reference input "${key}" is sealed until ${sealedUntil}: only the problem's managers may read it, through authenticated reads`,
    { problem_revision_id: revisionId, key, sealed_until: sealedUntil },
  );
}

/**
 * The binding, its revision, its Problem and its seal, with no access check, or null when any
 * of them does not exist. Readers check access themselves (resolveReference, the `/dl/` route).
 */
export async function loadReference(
  sql: Sql,
  revisionId: string,
  key: string,
  now: Date,
): Promise<Omit<ResolvedReference, "manager"> | null> {
  const [stored] = idPattern(IdPrefix.problemRevision).test(revisionId)
    ? await sql<ProblemRevisionRow[]>`select * from problem_revisions where id = ${revisionId}`
    : [];
  if (!stored) return null;
  const problem = await findProblem(sql, stored.problem_id);
  if (!problem) return null;
  const revision = await withEffectiveSealing(sql, stored, problem.owner_user_id);
  const binding = revision.verifier_input_bindings.find((b) => b.key === key);
  if (!binding) return null;
  const seal = referenceSeal(
    binding,
    revision.sealing,
    await sealedSlots(sql, revision.verifier_contract_id),
    now,
  );
  return { problem, revision, binding, seal };
}
