import { RunTrigger } from "@svc/schemas";
import type { Sql } from "../core/db/connect-sql.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import type { Viewer } from "../visibility/viewer.ts";
import { rerunVerification } from "./rerun-verification.ts";

/**
 * start_manual_verification (spec 2.4 trigger `manual`): an operator, acting as a live
 * administrator, verifies any active Submission again as a new run with the stage
 * implementations current now, say after a yank or a bulk revocation. Like a rerun it consumes no
 * submission quota; unlike one, only administrators start it, and the record says `manual`.
 * `viewer` null is an operator with shell access (`svc-server run rerun`), recorded as a null
 * `requested_by_user_id`.
 */
export async function startManualVerification(
  sql: Sql,
  viewer: Viewer | null,
  submissionId: string,
): Promise<{ verification_run_id: string; submission_id: string; trigger: RunTrigger }> {
  if (viewer && !viewer.isAdministrator) {
    throw new ServiceError(
      "forbidden",
      "a manual verification run is for the service's operators (administrators); the submitter or the problem's owner asks with rerun_verification",
      { submission_id: submissionId },
    );
  }
  return await rerunVerification(sql, viewer, submissionId, RunTrigger.manual);
}
