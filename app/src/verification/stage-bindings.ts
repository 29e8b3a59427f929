import type { ContractStage, VerifierContractFile } from "@svc/schemas";
import { mountedSlots } from "../sandbox/stage-job.ts";

/**
 * A revision's reference bindings as one sandbox stage sees them: `mounted` are the stored
 * bindings of the slots the stage selects (`reference_input_slots`, else every slot), in binding
 * order; `linked` are the selected slots bound by link, which a sandbox stage never mounts
 * (spec 2.3: the service holds no bytes for them). Bindings of other slots are in neither.
 */
export function stageBindings<B extends { key: string; url?: string | null }>(
  contract: Pick<VerifierContractFile, "reference_inputs">,
  stage: Pick<ContractStage, "reference_input_slots">,
  bindings: readonly B[],
): { mounted: B[]; linked: B[] } {
  const slots = mountedSlots(contract, stage);
  const selected = bindings.filter((binding) => slots.has(binding.key));
  return {
    mounted: selected.filter((binding) => binding.url === undefined || binding.url === null),
    linked: selected.filter((binding) => binding.url !== undefined && binding.url !== null),
  };
}
