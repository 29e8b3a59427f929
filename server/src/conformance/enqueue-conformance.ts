import type { Sql } from "../core/db/connect-sql.ts";

/** The graphile-worker task that runs an implementation's conformance fixtures. */
export const CONFORMANCE_TASK = "run_conformance";

/** Enqueues the conformance run of an implementation in the caller's transaction, once per implementation. */
export async function enqueueConformance(sql: Sql, implementationId: string): Promise<void> {
  await sql`
    select graphile_worker.add_job(${CONFORMANCE_TASK},
      json_build_object('verifier_implementation_id', ${implementationId}::text),
      max_attempts => 5, job_key => ${`conformance:${implementationId}`})`;
}
