import { RunTrigger } from "@svc/schemas";
import type { Sql } from "../core/db/connect-sql.ts";
import { inTransaction } from "../core/db/in-transaction.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import type { Viewer } from "../visibility/viewer.ts";
import { queueVerificationRun, type RunArtifact } from "./queue-verification-run.ts";

/**
 * rerun_verification: a re-examination of a Submission is a new run (spec 2.4, trigger `rerun`),
 * asked by its submitter, the Problem's owner or an administrator. The Submission must be active
 * and its revision pin a Contract. Reruns never count against a submission quota. An operator's
 * run (`trigger` manual, start_manual_verification) follows the same rules once its caller is
 * known to be an administrator, or an operator with shell access (`viewer` null, recorded as a
 * null `requested_by_user_id`).
 */
export async function rerunVerification(
  sql: Sql,
  viewer: Viewer | null,
  submissionId: string,
  trigger: typeof RunTrigger.rerun | typeof RunTrigger.manual = RunTrigger.rerun,
): Promise<{ verification_run_id: string; submission_id: string; trigger: RunTrigger }> {
  return await inTransaction(sql, async (tx) => {
    const [row] = await tx<
      {
        id: string;
        status: string;
        user_id: string;
        owner_user_id: string;
        problem_revision_id: string;
        verifier_contract_id: string | null;
        artifacts: RunArtifact[];
      }[]
    >`
      select s.id, s.status, s.user_id, p.owner_user_id, s.problem_revision_id, pr.verifier_contract_id, s.artifacts
      from submissions s join problems p on p.id = s.problem_id join problem_revisions pr on pr.id = s.problem_revision_id
      where s.id = ${submissionId} for update of s`;
    const mayRead =
      row &&
      (viewer === null ||
        viewer.isAdministrator ||
        row.user_id === viewer.userId ||
        row.owner_user_id === viewer.userId);
    if (!row || !mayRead) {
      throw new ServiceError("not_found", `no submission you can rerun has the id "${submissionId}"`, {
        submission_id: submissionId,
      });
    }
    if (row.status !== "active") {
      throw new ServiceError(
        "conflict",
        `submission ${submissionId} is withdrawn; a withdrawn submission is not verified again`,
        {
          submission_id: submissionId,
          status: row.status,
        },
      );
    }
    if (!row.verifier_contract_id) {
      throw new ServiceError(
        "conflict",
        `submission ${submissionId} is on a revision that pins no verifier contract; its results are recorded, not checked`,
        { submission_id: submissionId },
      );
    }
    const id = await queueVerificationRun(tx, {
      submissionId,
      problemRevisionId: row.problem_revision_id,
      verifierContractId: row.verifier_contract_id,
      artifacts: row.artifacts,
      trigger,
      requestedByUserId: viewer?.userId ?? null,
    });
    return { verification_run_id: id, submission_id: submissionId, trigger };
  });
}
