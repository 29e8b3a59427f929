import { IdPrefix, idPattern } from "@svc/schemas";
import type { Sql } from "../core/db/connect-sql.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import type { Viewer } from "../visibility/viewer.ts";
import { readableRunSql } from "./readable-run-sql.ts";
import { RUN_COLUMNS, type RunRow, toVerificationRuns, type VerificationRun } from "./verification-run.ts";

const RUN_ID = idPattern(IdPrefix.verificationRun);

/**
 * The run the viewer names, when they may read it, as they may see it at `now` (sealed
 * evaluations withhold outcomes and protected evidence); not_found otherwise (never a guess).
 */
export async function getVerification(
  sql: Sql,
  viewer: Viewer,
  runId: string,
  baseUrl: string,
  now: Date,
): Promise<VerificationRun> {
  const [row] = RUN_ID.test(runId)
    ? await sql<RunRow[]>`
        select ${sql.unsafe(RUN_COLUMNS)} from verification_runs r
        where r.id = ${runId} and ${readableRunSql(sql, viewer)}`
    : [];
  if (!row) {
    throw new ServiceError("not_found", `no verification run you can read has the id "${runId}"`, {
      verification_run_id: runId,
    });
  }
  const [run] = await toVerificationRuns(sql, [row], baseUrl, { viewer, now });
  return run!;
}
