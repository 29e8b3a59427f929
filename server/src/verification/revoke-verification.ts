import { recordRunRevoked } from "../agents/record-run-revoked.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import type { Services } from "../core/services/services.ts";
import type { Viewer } from "../visibility/viewer.ts";

/**
 * revoke_verification (operator, spec 2.4 and 3): marks a finished run's mechanism as not matching
 * its Contract. Write-once; the run stays finished with its result, and stops counting toward the
 * verdict. Only a live administrator may revoke.
 */
export async function revokeVerification(
  services: Services,
  viewer: Viewer,
  input: { verification_run_id: string; reason_md: string },
): Promise<{
  verification_run_id: string;
  revocation: { revoked_at: string; revoked_by_user_id: string; reason_md: string };
}> {
  if (!viewer.isAdministrator) {
    throw new ServiceError("forbidden", "revoking a verification run is for the service's administrators", {
      verification_run_id: input.verification_run_id,
    });
  }
  const { sql } = services;
  const revocation = {
    revoked_at: services.clock().toISOString(),
    revoked_by_user_id: viewer.userId,
    reason_md: input.reason_md,
  };
  return await sql.begin(async (tx) => {
    const [run] = await tx<{ status: string; revocation: unknown }[]>`
      select status, revocation from verification_runs where id = ${input.verification_run_id} for update`;
    if (!run) {
      throw new ServiceError("not_found", `no verification run has the id "${input.verification_run_id}"`, {
        verification_run_id: input.verification_run_id,
      });
    }
    if (run.status !== "finished") {
      throw new ServiceError(
        "conflict",
        `run ${input.verification_run_id} has not finished; revoke a run once it has a result`,
        {
          verification_run_id: input.verification_run_id,
          status: run.status,
        },
      );
    }
    if (run.revocation !== null) {
      throw new ServiceError(
        "conflict",
        `run ${input.verification_run_id} is already revoked; a revocation is written once`,
        {
          verification_run_id: input.verification_run_id,
          revocation: run.revocation,
        },
      );
    }
    await tx`update verification_runs set revocation = ${tx.json(revocation)} where id = ${input.verification_run_id}`;
    // The verdict the owner's Attempt counted on no longer stands: a criteria change for them.
    await recordRunRevoked(tx, input.verification_run_id, input.reason_md, new Date(revocation.revoked_at));
    return { verification_run_id: input.verification_run_id, revocation };
  });
}
