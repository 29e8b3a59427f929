/**
 * Beta capabilities an operator grants to allowlisted users (spec 5.3), recorded with grantor
 * and time. A token carries those its user held when it was issued; actions still check the
 * user's live grants (see liveRole).
 */
export const Capability = {
  /** Materialize private packages, open participation, archive. */
  author: "author",
  /** Name public digest-pinned images as sandbox checkers. */
  custom_verifier: "custom_verifier",
  /** An author who may list their own work (spec 5.4); implies author. */
  trusted_author: "trusted_author",
} as const;
export type Capability = (typeof Capability)[keyof typeof Capability];

/** Whether a string names a capability. */
export function isCapability(value: string): value is Capability {
  return Object.hasOwn(Capability, value);
}
