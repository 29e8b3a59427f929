import type { ContractStage, VerifierContractFile } from "@svc/schemas";
import type { ContentHash } from "../hash/sha256.ts";
import type { CheckerImplementation, CheckerJob, InputFile } from "./checker-job.ts";

/** The implementation record a job runs, from the plan's or the service's fields plus the program bytes. */
export function checkerImplementation(
  record: {
    runtime: { image_ref: string; image_digest: string };
    entrypoint: string[];
    limits: { vcpu: number; memory_mb: number; disk_mb: number; timeout_seconds: number };
    program: { filename: string } | null;
  },
  programBytes: Uint8Array | null,
): CheckerImplementation {
  const { vcpu, memory_mb, disk_mb, timeout_seconds } = record.limits;
  if (record.program !== null && programBytes === null) {
    throw new Error(`the script checker ${record.program.filename} has no bytes`);
  }
  return {
    image_ref: record.runtime.image_ref,
    image_digest: record.runtime.image_digest as ContentHash,
    entrypoint: record.entrypoint,
    limits: { vcpu, memory_mb, disk_mb, timeout_seconds },
    program:
      record.program !== null && programBytes !== null
        ? { filename: record.program.filename, bytes: programBytes }
        : null,
  };
}

/** The slot keys a sandbox stage mounts: its `reference_input_slots`, or every slot when omitted. */
export function mountedSlots(
  contract: Pick<VerifierContractFile, "reference_inputs">,
  stage: Pick<ContractStage, "reference_input_slots">,
): Set<string> {
  const selected = stage.reference_input_slots;
  return new Set(selected ?? contract.reference_inputs.map((slot) => slot.key));
}

/**
 * The job for one sandbox stage of a contract on the given files: the stage's result_kind (else
 * the contract's) and evidence_schema; reference inputs outside the stage's selected slots are
 * not mounted.
 */
export function stageJob(
  contract: VerifierContractFile,
  stage: ContractStage,
  implementation: CheckerImplementation,
  files: { artifacts: InputFile[]; reference: InputFile[] },
): CheckerJob {
  const slots = mountedSlots(contract, stage);
  return {
    stage_key: stage.key,
    result_kind: stage.result_kind ?? contract.result_kind,
    implementation,
    artifacts: files.artifacts,
    reference: files.reference.filter((file) => slots.has(file.name)),
    evidence_schema: stage.evidence_schema ?? null,
  };
}
