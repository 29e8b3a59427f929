import { currentImplementation as chooseImplementation, type ImplementationChoice } from "@svc/app";
import type { ConformanceStatus, ImplementationLimits, ImplementationRuntime } from "@svc/schemas";
import type { Sql } from "../core/db/connect-sql.ts";

/** A VerifierImplementation as a run executes it. */
export interface RunnableImplementation {
  id: string;
  stage_key: string;
  version_number: number;
  runtime: ImplementationRuntime;
  entrypoint: string[];
  limits: ImplementationLimits;
  content_hash: string;
  program: { filename: string; content_hash: string; size_bytes: number } | null;
  conformance: { status: ConformanceStatus };
  yanked_at: Date | null;
}

/**
 * The stage's implementation a run may use and the one it waits for, by the shared rule
 * (`currentImplementation` in @svc/app, spec 2.2) over every implementation of the stage.
 */
export async function currentImplementation(
  sql: Sql,
  contractId: string,
  stageKey: string,
): Promise<ImplementationChoice<RunnableImplementation>> {
  const rows = await sql<RunnableImplementation[]>`
    select id, stage_key, version_number, runtime, entrypoint, limits, content_hash, program, conformance, yanked_at
    from verifier_implementations
    where verifier_contract_id = ${contractId} and stage_key = ${stageKey}`;
  return chooseImplementation(rows);
}
