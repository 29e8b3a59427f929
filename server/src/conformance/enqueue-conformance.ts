import type { Sql } from "../core/db/connect-sql.ts";
import { TaskName } from "../core/jobs/task-name.ts";

/** Enqueues the conformance run of an implementation in the caller's transaction, once per implementation. */
export async function enqueueConformance(sql: Sql, implementationId: string): Promise<void> {
  await sql`
    select graphile_worker.add_job(${TaskName.runConformance},
      json_build_object('verifier_implementation_id', ${implementationId}::text),
      max_attempts => 5, job_key => ${`conformance:${implementationId}`})`;
}
