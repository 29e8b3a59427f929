import type { CheckerResult, ContractStage, RuleOwner, VerifierContractFile } from "@svc/schemas";
import type postgres from "postgres";
import { ServiceError } from "../core/errors/service-error.ts";
import { enqueueRun } from "../core/jobs/enqueue-run.ts";
import type { Services } from "../core/services/services.ts";
import type { Viewer } from "../visibility/viewer.ts";
import type { ExternalMechanism, StageMechanism } from "./stage-record.ts";

/** What a partner attests (attest_external_stage's input). */
export interface AttestationInput {
  verification_run_id: string;
  stage_key: string;
  /** `error` is the service's own: a partner settles verified, refuted or inconclusive. */
  result: CheckerResult;
  reference: string;
  evidence_hash: string | null;
  evidence_md: string;
  /** The partner's evidence bytes, kept as the stage's one evidence file (at most PARTNER_EVIDENCE_MAX_BYTES). */
  evidence?: { filename: string; bytes: Uint8Array } | undefined;
}

/**
 * The most evidence bytes a partner attaches to one attestation: 512 KiB, so their base64 (4/3
 * larger) fits one MCP request under the endpoint's 1 MiB body limit with room for the rest.
 */
export const PARTNER_EVIDENCE_MAX_BYTES = 512 * 1024;

/**
 * attest_external_stage (spec 2.4 mechanism.external): a user an operator registered as an
 * attester of the stage's partner system records its result for one waiting external stage, once.
 * The stage finishes with the result and evidence_md and `mechanism.external` {system, reference,
 * rule_owner (the Contract stage's), evidence_hash, attested_by_user_id, attested_at}, and the
 * run is woken to go on. Refused: not_found to anyone who is not an attester of the stage's
 * system (the run's existence is not theirs to learn); `already_attested` for a second
 * attestation; `attestation_closed` once the deadline passed or the stage ended without one;
 * `conflict` while the run has not reached the stage. The partner may attach its evidence bytes
 * (at most 512 KiB): they go to the blob store and become the stage's one evidence file, read like
 * a sandbox stage's evidence under the run's rules; `evidence_hash` is their hash (given, it must
 * match them).
 */
export async function attestExternalStage(
  services: Services,
  viewer: Viewer,
  input: AttestationInput,
): Promise<{ verification_run_id: string; stage_key: string; result: string; mechanism: StageMechanism }> {
  const { verification_run_id: runId, stage_key: stageKey } = input;
  const now = services.clock();
  const evidence = await storeEvidence(services, input);
  return await services.sql.begin(async (tx) => {
    const [run] = await tx<{ document: VerifierContractFile }[]>`
      select vc.document from verification_runs r join verifier_contracts vc on vc.id = r.verifier_contract_id
      where r.id = ${runId}`;
    const stage: ContractStage | undefined = run?.document.stages.find(
      (s) => s.key === stageKey && s.kind === "external",
    );
    const system = stage?.external_system ?? null;
    const [attester] =
      system === null
        ? []
        : await tx`
            select 1 from external_system_attesters where system = ${system} and user_id = ${viewer.userId}`;
    if (!stage || system === null || !attester) {
      throw new ServiceError(
        "not_found",
        `run "${runId}" has no external stage "${stageKey}" awaiting your attestation: only users an operator registered for the stage's system attest`,
        { verification_run_id: runId, stage_key: stageKey },
      );
    }
    const [row] = await tx<
      {
        status: string;
        mechanism: StageMechanism | null;
        attestation_due_at: Date | null;
        result: string | null;
      }[]
    >`
      select status, mechanism, attestation_due_at, result from verification_stage_results
      where verification_run_id = ${runId} and stage_key = ${stageKey} for update`;
    const details = { verification_run_id: runId, stage_key: stageKey, system };
    if (row?.mechanism?.external) {
      throw new ServiceError(
        "already_attested",
        `stage "${stageKey}" of run ${runId} is already attested; an attestation is written once`,
        { ...details, attestation: row.mechanism.external, result: row.result },
      );
    }
    if (row?.status === "finished" || (row?.attestation_due_at && now >= row.attestation_due_at)) {
      throw new ServiceError(
        "attestation_closed",
        `stage "${stageKey}" of run ${runId} no longer takes an attestation: its deadline ${row.attestation_due_at?.toISOString() ?? ""} passed and it ends inconclusive`,
        { ...details, attestation_due_at: row.attestation_due_at?.toISOString() ?? null },
      );
    }
    if (row?.status !== "running") {
      throw new ServiceError(
        "conflict",
        `run ${runId} has not reached stage "${stageKey}" yet; attest once the stage is waiting (its evidence says so)`,
        details,
      );
    }
    const external: ExternalMechanism = {
      system,
      reference: input.reference,
      rule_owner: stage.rule_owner as RuleOwner,
      evidence_hash: evidence ? evidence.content_hash : input.evidence_hash,
      attested_by_user_id: viewer.userId,
      attested_at: now.toISOString(),
    };
    const mechanism: StageMechanism = { sandbox: null, review: null, external };
    await tx`
      update verification_stage_results
      set status = 'finished', result = ${input.result}, score = null, evidence_md = ${input.evidence_md},
        mechanism = ${tx.json(mechanism as unknown as postgres.JSONValue)}, finished_at = ${now},
        evidence_files = ${tx.json(evidence ? [evidence] : [])}
      where verification_run_id = ${runId} and stage_key = ${stageKey}`;
    await enqueueRun(tx, runId);
    return { verification_run_id: runId, stage_key: stageKey, result: input.result, mechanism };
  });
}

/**
 * Stores the partner's evidence bytes, before the attestation's transaction (a refused
 * attestation leaves an unreferenced blob, as a refused upload does), after checking their size
 * and that `evidence_hash`, when given, is theirs.
 */
async function storeEvidence(
  services: Services,
  input: AttestationInput,
): Promise<{ path: string; content_hash: string; size_bytes: number } | null> {
  if (!input.evidence) return null;
  const { filename, bytes } = input.evidence;
  const details = { verification_run_id: input.verification_run_id, stage_key: input.stage_key };
  if (bytes.byteLength > PARTNER_EVIDENCE_MAX_BYTES) {
    throw new ServiceError(
      "invalid_input",
      `evidence.content_base64 decodes to ${bytes.byteLength} bytes; a partner's evidence is at most ${PARTNER_EVIDENCE_MAX_BYTES} bytes (keep the rest in your own records and name it in reference)`,
      { ...details, field: "evidence.content_base64", max_bytes: PARTNER_EVIDENCE_MAX_BYTES },
    );
  }
  const stored = await services.blobs.put(Buffer.from(bytes));
  if (input.evidence_hash !== null && input.evidence_hash !== stored.content_hash) {
    throw new ServiceError(
      "invalid_input",
      `evidence_hash is ${input.evidence_hash} but the attached evidence hashes to ${stored.content_hash}: send the hash of these bytes, or null`,
      { ...details, field: "evidence_hash", evidence_content_hash: stored.content_hash },
    );
  }
  return { path: filename, ...stored };
}
