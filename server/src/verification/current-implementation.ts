import type { ImplementationLimits, ImplementationRuntime } from "@svc/schemas";
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
  conformance: { status: "pending" | "passed" | "failed" };
}

/**
 * The stage's implementation a run may use (spec 2.2): the highest non-yanked version whose
 * conformance passed; there is no stored pointer. `pending` is the newest non-yanked
 * implementation above it still awaiting its fixtures (a run waits for it rather than finishing
 * early), or null.
 */
export async function currentImplementation(
  sql: Sql,
  contractId: string,
  stageKey: string,
): Promise<{ current: RunnableImplementation | null; pending: RunnableImplementation | null }> {
  const rows = await sql<RunnableImplementation[]>`
    select id, stage_key, version_number, runtime, entrypoint, limits, content_hash, program, conformance
    from verifier_implementations
    where verifier_contract_id = ${contractId} and stage_key = ${stageKey} and yanked_at is null
    order by version_number desc`;
  const current = rows.find((row) => row.conformance.status === "passed") ?? null;
  const pending =
    rows.find(
      (row) =>
        row.conformance.status === "pending" &&
        (current === null || row.version_number > current.version_number),
    ) ?? null;
  return { current, pending };
}
