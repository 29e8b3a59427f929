import type { ContractStage } from "@svc/schemas";
import type { Services } from "../core/services/services.ts";
import type { FinishedStageOutcome } from "./run-sandbox-stage.ts";

/**
 * An external stage waiting for its partner's attestation: the run stays `running` without a
 * worker or a poll; attest_external_stage, or the deadline sweep once `due_at` passes, enqueues it.
 */
export interface AwaitingAttestationOutcome {
  kind: "awaiting_attestation";
  system: string;
  due_at: string;
}

/**
 * Runs one external stage (spec 2.4 mechanism.external): a stage naming a system this deployment
 * has not registered cannot be executed (inconclusive); otherwise the stage starts `running`,
 * says in its evidence what it waits for and until when (the system's attestation_hours), and the
 * run waits. Executed again: still waiting before the deadline, inconclusive after it. The
 * attestation itself finishes the stage (attestExternalStage), so a finished stage never gets here.
 */
export async function runExternalStage(
  services: Services,
  runId: string,
  position: number,
  stage: ContractStage,
  start: () => Promise<void>,
): Promise<FinishedStageOutcome | AwaitingAttestationOutcome> {
  const { sql } = services;
  const system = stage.external_system ?? "";
  const [registered] = await sql<{ attestation_hours: number }[]>`
    select attestation_hours from external_systems where system = ${system}`;
  if (!registered) {
    return ended(
      `external stage \`${stage.key}\`: the partner system "${system}" is not registered on this deployment, so no attestation can be received (an operator registers it with register_external_system)`,
    );
  }
  const [row] = await sql<{ status: string; attestation_due_at: Date | null }[]>`
    select status, attestation_due_at from verification_stage_results
    where verification_run_id = ${runId} and position = ${position}`;
  const now = services.clock();
  let due = row?.status === "running" ? row.attestation_due_at : null;
  if (!due) {
    await start();
    due = new Date(now.getTime() + registered.attestation_hours * 3_600_000);
    await sql`
      update verification_stage_results
      set attestation_due_at = ${due},
        evidence_md = ${`waiting: for an attestation from ${system} by ${due.toISOString()} (attest_external_stage)`}
      where verification_run_id = ${runId} and position = ${position} and status = 'running'`;
  }
  if (now.getTime() >= due.getTime()) {
    return ended(
      `external stage \`${stage.key}\`: ${system} attested nothing by the deadline ${due.toISOString()}`,
    );
  }
  return { kind: "awaiting_attestation", system, due_at: due.toISOString() };
}

function ended(reason: string): FinishedStageOutcome {
  return {
    kind: "finished",
    result: "inconclusive",
    score: null,
    evidence_md: reason,
    mechanism: null,
    log: null,
    evidence_files: [],
  };
}
