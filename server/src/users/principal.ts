import type { Capability, Scope } from "@svc/schemas";
import type { User } from "./user.ts";

/**
 * Who is calling, as their bearer token says: the user, the scopes the token was issued with, and
 * the capabilities it was issued with that the user still holds at this request (authenticate
 * intersects them with the live grants). Roles are checked live on each action (liveRole).
 */
export interface Principal {
  user: User;
  scopes: Scope[];
  capabilities: Capability[];
  /**
   * What the bearer was: an operator-issued `svc_` token or an OAuth access token. A refusal for
   * missing scope advises accordingly: an OAuth client re-authorizes, an operator issues a token.
   */
  via?: "operator_token" | "oauth_token";
}
