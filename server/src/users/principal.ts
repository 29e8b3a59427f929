import type { Capability, Scope } from "@svc/schemas";
import type { User } from "./user.ts";

/**
 * Who is calling, as their bearer token says: the user and the scopes and capabilities the token
 * was issued with. These are claims fixed at issue time; roles are checked live (liveRole).
 */
export interface Principal {
  user: User;
  scopes: Scope[];
  capabilities: Capability[];
}
