import type { ReferenceBinding, RevisionSealing } from "./problem-revision.ts";

/** Whether one binding is withheld now, and until when (spec 2.3 sealing, 4.1 reference_resources). */
export interface ReferenceSeal {
  sealed: boolean;
  /** The scheduled release while sealed; null when the bytes are public. */
  sealed_until: string | null;
}

/**
 * A binding is sealed while its Contract slot is declared `sealed`, the revision has a sealing
 * policy, nobody has released it early (`unsealed_at` null) and `sealed_until` is still ahead.
 * Reaching the date unseals without any write, so reads never depend on a job having run.
 */
export function referenceSeal(
  binding: ReferenceBinding,
  sealing: RevisionSealing | null,
  sealedSlots: ReadonlySet<string>,
  now: Date,
): ReferenceSeal {
  if (!sealing || !sealedSlots.has(binding.key) || binding.url !== undefined) {
    return { sealed: false, sealed_until: null };
  }
  const open = sealing.unsealed_at !== null || now.getTime() >= Date.parse(sealing.sealed_until);
  return open ? { sealed: false, sealed_until: null } : { sealed: true, sealed_until: sealing.sealed_until };
}
