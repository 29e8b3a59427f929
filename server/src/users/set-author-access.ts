import { AuthorAccess, Capability, GrantedRole, Role } from "@svc/schemas";
import { inTransaction } from "../core/db/in-transaction.ts";
import type { Services } from "../core/services/services.ts";
import { type AccessGrant, listAccessGrants } from "./access-grant.ts";
import type { Caller } from "./caller.ts";
import { findUser } from "./find-user.ts";
import { grantCapability } from "./grant-capability.ts";
import { grantRole } from "./grant-role.ts";
import { liveRole } from "./live-role.ts";
import { requireAdministrator } from "./require-administrator.ts";
import { revokeCapability } from "./revoke-capability.ts";
import { revokeRole } from "./revoke-role.ts";

export interface SetAuthorAccessInput {
  /** The user's handle or `usr_` id. */
  user: string;
  access: AuthorAccess;
}

export interface AuthorAccessResult {
  user: { id: string; handle: string };
  access: AuthorAccess;
  /** Whether anything was granted or revoked; setting the access a user has changes nothing. */
  changed: boolean;
  /** Every grant of the user, revoked ones included, oldest first. */
  grants: AccessGrant[];
}

/**
 * set_author_access (spec 4.1, 5.4): a live administrator sets a user's author access to exactly
 * `none`, `author` (the author capability) or `trusted_author` (the capability and the trusted
 * author role). Each grant and revocation is recorded with the administrator as grantor and the
 * time; revocations apply on the user's next action, whatever token they hold.
 */
export async function setAuthorAccess(
  services: Services,
  caller: Caller,
  input: SetAuthorAccessInput,
): Promise<AuthorAccessResult> {
  const by = caller.principal.user.id;
  await requireAdministrator(services.sql, by);
  return inTransaction(services.sql, async (tx) => {
    const user = await findUser(tx, input.user);
    // Lock the user's row: two administrators setting access at once apply one after the other.
    await tx`select 1 from users where id = ${user.id} for update`;
    const live = await liveRole(tx, user.id);
    const hasAuthor = live.capabilities.includes(Capability.author);
    const hasTrusted = live.roles.includes(Role.trusted_author);
    const wantAuthor = input.access !== AuthorAccess.none;
    const wantTrusted = input.access === AuthorAccess.trusted_author;
    const userId = user.id;
    if (wantAuthor && !hasAuthor)
      await grantCapability(tx, { userId, capability: Capability.author, grantedBy: by });
    if (!wantAuthor && hasAuthor)
      await revokeCapability(tx, { userId, capability: Capability.author, revokedBy: by });
    if (wantTrusted && !hasTrusted)
      await grantRole(tx, { userId, role: GrantedRole.trusted_author, grantedBy: by });
    if (!wantTrusted && hasTrusted)
      await revokeRole(tx, { userId, role: GrantedRole.trusted_author, revokedBy: by });
    const changed = wantAuthor !== hasAuthor || wantTrusted !== hasTrusted;
    return {
      user: { id: user.id, handle: user.handle },
      access: input.access,
      changed,
      grants: await listAccessGrants(tx, user.id),
    };
  });
}
