import type { Capability } from "@svc/schemas";

/** One grant of a capability, kept after it is revoked (spec 5.3: recorded with grantor and time). */
export interface CapabilityGrant {
  user_id: string;
  capability: Capability;
  /** The granting user, or null when an operator granted it with `svc-server`. */
  granted_by: string | null;
  granted_at: Date;
  revoked_by: string | null;
  revoked_at: Date | null;
}
