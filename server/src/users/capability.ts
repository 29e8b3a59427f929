import { Capability } from "@svc/schemas";

/**
 * Beta capabilities an operator grants to allowlisted users (spec 5.3), recorded with grantor
 * and time. A token carries those its user held when it was issued; actions still check the
 * user's live grants (see liveRole). `Capability` is the closed set in @svc/schemas.
 *
 * Whether a string names a capability.
 */
export function isCapability(value: string): value is Capability {
  return Object.hasOwn(Capability, value);
}
