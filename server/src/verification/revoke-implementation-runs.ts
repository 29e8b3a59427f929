import { IdPrefix, idPattern } from "@svc/schemas";
import { ServiceError } from "../core/errors/service-error.ts";
import type { Services } from "../core/services/services.ts";
import type { Viewer } from "../visibility/viewer.ts";

const IMPLEMENTATION_ID = idPattern(IdPrefix.verifierImplementation);

/** What revoke_implementation_runs returns. */
export interface ImplementationRunsRevocation {
  verifier_implementation_id: string;
  /** The one revocation each newly revoked run carries (spec 2.4 `revocation`). */
  revocation: { revoked_at: string; revoked_by_user_id: string | null; reason_md: string };
  /** Finished runs a stage of which ran the implementation, revoked now. */
  revoked_verification_run_ids: string[];
  /** Runs revoked before, which keep their first revocation (write-once). */
  already_revoked_verification_run_ids: string[];
  /** Runs that ran it but have not finished (a later stage still going): revoke them once finished. */
  unfinished_verification_run_ids: string[];
}

/**
 * revoke_implementation_runs (spec 2.4 and 3): an operator (a live administrator) who found an
 * implementation not matching its Contract revokes every finished run one of whose stages it ran,
 * in one action with one reason. Each run's revocation is written once, so runs already revoked
 * keep theirs; revoked runs keep their result and stop counting toward the verdict (they never
 * become refutations). Nothing new stops running it: that is a yank (yank_verifier_implementation).
 * `viewer` null is an operator with shell access (`svc-server implementation revoke-runs`),
 * recorded as a null `revoked_by_user_id`.
 */
export async function revokeImplementationRuns(
  services: Pick<Services, "sql" | "clock">,
  viewer: Viewer | null,
  input: { verifier_implementation_id: string; reason_md: string },
): Promise<ImplementationRunsRevocation> {
  const id = input.verifier_implementation_id;
  if (viewer && !viewer.isAdministrator) {
    throw new ServiceError(
      "forbidden",
      "revoking an implementation's runs is for the service's operators (administrators)",
      {
        verifier_implementation_id: id,
      },
    );
  }
  const revocation = {
    revoked_at: services.clock().toISOString(),
    revoked_by_user_id: viewer?.userId ?? null,
    reason_md: input.reason_md,
  };
  return await services.sql.begin(async (tx) => {
    const [implementation] = IMPLEMENTATION_ID.test(id)
      ? await tx`select id from verifier_implementations where id = ${id}`
      : [];
    if (!implementation) {
      throw new ServiceError("not_found", `no verifier implementation has the id "${id}"`, {
        verifier_implementation_id: id,
      });
    }
    const runs = await tx<{ id: string; status: string; revoked: boolean }[]>`
      select r.id, r.status, r.revocation is not null as revoked from verification_runs r
      where exists (
        select 1 from verification_stage_results st
        where st.verification_run_id = r.id and st.kind = 'sandbox'
          and st.mechanism -> 'sandbox' ->> 'verifier_implementation_id' = ${id})
      order by r.id for update of r`;
    const toRevoke = runs.filter((run) => run.status === "finished" && !run.revoked).map((run) => run.id);
    if (toRevoke.length > 0) {
      await tx`
        update verification_runs set revocation = ${tx.json(revocation)}
        where id = any(${toRevoke}) and revocation is null`;
    }
    return {
      verifier_implementation_id: id,
      revocation,
      revoked_verification_run_ids: toRevoke,
      already_revoked_verification_run_ids: runs.filter((run) => run.revoked).map((run) => run.id),
      unfinished_verification_run_ids: runs
        .filter((run) => run.status !== "finished" && !run.revoked)
        .map((run) => run.id),
    };
  });
}
