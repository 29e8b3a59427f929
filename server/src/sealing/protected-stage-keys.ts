/** The parts of a Contract that decide which stages are protected. */
export interface ProtectionContract {
  reference_inputs: ReadonlyArray<{ key: string; sealed?: boolean }>;
  stages: ReadonlyArray<{ key: string; kind: string; reference_input_slots?: readonly string[] | null }>;
}

/** The keys of the slots a Contract declares sealed. */
export function sealedSlotKeys(contract: ProtectionContract): Set<string> {
  return new Set(contract.reference_inputs.filter((slot) => slot.sealed === true).map((slot) => slot.key));
}

/**
 * The protected stages of a Contract: sandbox stages whose `reference_input_slots` select a
 * sealed slot (spec 2.4). A sandbox stage that omits `reference_input_slots` mounts every slot
 * (spec 2.5), so it is protected whenever any slot is sealed; `[]` mounts nothing. Review and
 * external stages mount no reference inputs and are never protected. Pure: review bundles use it
 * to decide which stage evidence to withhold.
 */
export function protectedStageKeys(
  contract: ProtectionContract,
  sealedSlots: ReadonlySet<string> = sealedSlotKeys(contract),
): Set<string> {
  const keys = new Set<string>();
  if (sealedSlots.size === 0) return keys;
  for (const stage of contract.stages) {
    if (stage.kind !== "sandbox") continue;
    const selected = stage.reference_input_slots ?? contract.reference_inputs.map((slot) => slot.key);
    if (selected.some((key) => sealedSlots.has(key))) keys.add(stage.key);
  }
  return keys;
}
