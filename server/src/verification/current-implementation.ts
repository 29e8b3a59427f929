import { currentImplementation as chooseImplementation, type ImplementationChoice } from "@svc/app";
import type { ConformanceStatus, ImplementationLimits, ImplementationRuntime } from "@svc/schemas";
import type { Pool, Sql } from "../core/db/connect-sql.ts";
import { groupedStatementOn } from "../core/db/grouped-statement.ts";

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
  const [implementations] = await stageImplementations(sql, [{ contractId, stageKey }]);
  return chooseImplementation(implementations!);
}

/**
 * currentImplementation for a run's stage, on the pool: runs looking up at the same time share
 * one statement (groupedStatement). Not for a transaction, whose statements would wait a turn.
 */
export async function currentImplementationForRun(
  pool: Pool,
  contractId: string,
  stageKey: string,
): Promise<ImplementationChoice<RunnableImplementation>> {
  return chooseImplementation(await groupedStageImplementations(pool, { contractId, stageKey }));
}

const groupedStageImplementations = groupedStatementOn(stageImplementations);

/** Every implementation of each stage, one statement for them all. */
async function stageImplementations(
  sql: Sql,
  stages: Array<{ contractId: string; stageKey: string }>,
): Promise<RunnableImplementation[][]> {
  const rows = await sql<(RunnableImplementation & { verifier_contract_id: string })[]>`
    select id, verifier_contract_id, stage_key, version_number, runtime, entrypoint, limits, content_hash, program,
      conformance, yanked_at
    from verifier_implementations
    where (verifier_contract_id, stage_key) in (
      select * from unnest(${stages.map((stage) => stage.contractId)}::text[], ${stages.map((stage) => stage.stageKey)}::text[]))`;
  return stages.map((stage) =>
    rows
      .filter((row) => row.verifier_contract_id === stage.contractId && row.stage_key === stage.stageKey)
      .map(({ verifier_contract_id: _, ...implementation }) => implementation),
  );
}
