import type { GrantedRole } from "@svc/schemas";

/** One grant of a role (trusted author, administrator), kept after it is revoked (spec 5.4). */
export interface RoleGrant {
  user_id: string;
  role: GrantedRole;
  /** The granting user, or null when an operator granted it with `svc-server`. */
  granted_by: string | null;
  granted_at: Date;
  revoked_by: string | null;
  revoked_at: Date | null;
}
