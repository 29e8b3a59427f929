import { expect, it } from "vitest";
import { addUser } from "../../src/users/add-user.ts";
import { getUserByHandle } from "../../src/users/get-user-by-handle.ts";
import { grantCapability } from "../../src/users/grant-capability.ts";
import { grantRole } from "../../src/users/grant-role.ts";
import { liveRole } from "../../src/users/live-role.ts";
import { requireAdministrator } from "../../src/users/require-administrator.ts";
import { requireCapability } from "../../src/users/require-capability.ts";
import { revokeCapability } from "../../src/users/revoke-capability.ts";
import { setAdministrator } from "../../src/users/set-administrator.ts";
import { describeWithDatabase, useTestDatabase } from "../support/test-database.ts";

describeWithDatabase("users", () => {
  const db = useTestDatabase();

  it("creates users with random usr_ ids and unique, well-formed handles", async () => {
    const ada = await addUser(db.sql, { handle: "ada" });
    const bob = await addUser(db.sql, { handle: "bob-2", isAdmin: true });
    expect(ada.id).toMatch(/^usr_[0-9a-z]{20}$/);
    expect(ada.id).not.toBe(bob.id);
    expect(bob.is_admin).toBe(true);
    expect((await getUserByHandle(db.sql, "ada")).id).toBe(ada.id);
    await expect(addUser(db.sql, { handle: "ada" })).rejects.toMatchObject({ code: "conflict", status: 409 });
    await expect(addUser(db.sql, { handle: "Ada Lovelace" })).rejects.toMatchObject({
      code: "invalid_input",
    });
    await expect(addUser(db.sql, { handle: "x".repeat(40) })).rejects.toMatchObject({
      code: "invalid_input",
    });
    await expect(getUserByHandle(db.sql, "nobody")).rejects.toMatchObject({ code: "not_found" });
  });

  it("records each capability grant with its grantor and time, and a repeated grant changes nothing", async () => {
    const admin = await addUser(db.sql, { handle: "granter", isAdmin: true });
    const user = await addUser(db.sql, { handle: "grantee" });
    const grant = await grantCapability(db.sql, {
      userId: user.id,
      capability: "author",
      grantedBy: admin.id,
    });
    expect(grant).toMatchObject({
      user_id: user.id,
      capability: "author",
      granted_by: admin.id,
      revoked_at: null,
    });
    expect(grant.granted_at).toBeInstanceOf(Date);
    const again = await grantCapability(db.sql, { userId: user.id, capability: "author" });
    expect(again).toEqual(grant);
    await expect(
      grantCapability(db.sql, { userId: "usr_missing000000", capability: "author" }),
    ).rejects.toMatchObject({ code: "not_found" });
  });

  it("derives roles live: everyone contributes, the trusted_author role implies author, the administrator grant makes an administrator", async () => {
    const user = await addUser(db.sql, { handle: "roles" });
    expect(await liveRole(db.sql, user.id)).toEqual({
      user_id: user.id,
      roles: ["contributor"],
      capabilities: [],
    });
    await grantRole(db.sql, { userId: user.id, role: "trusted_author" });
    await setAdministrator(db.sql, user.id, true);
    expect(await liveRole(db.sql, user.id)).toEqual({
      user_id: user.id,
      roles: ["contributor", "author", "trusted_author", "administrator"],
      capabilities: [],
    });
    await requireCapability(db.sql, user.id, "author");
    await expect(requireCapability(db.sql, user.id, "custom_verifier")).rejects.toMatchObject({
      code: "forbidden",
    });
    await expect(liveRole(db.sql, "usr_missing000000")).rejects.toMatchObject({ code: "not_found" });
  });

  it("takes administrator authority away on the next check", async () => {
    const admin = await addUser(db.sql, { handle: "former-admin", isAdmin: true });
    await requireAdministrator(db.sql, admin.id);
    await setAdministrator(db.sql, admin.id, false);
    await expect(requireAdministrator(db.sql, admin.id)).rejects.toMatchObject({ code: "forbidden" });
  });

  it("revokes a capability with its revoker and refuses to revoke one not held", async () => {
    const admin = await addUser(db.sql, { handle: "revoker", isAdmin: true });
    const user = await addUser(db.sql, { handle: "revokee" });
    await grantCapability(db.sql, { userId: user.id, capability: "custom_verifier" });
    const revoked = await revokeCapability(db.sql, {
      userId: user.id,
      capability: "custom_verifier",
      revokedBy: admin.id,
    });
    expect(revoked).toMatchObject({ revoked_by: admin.id, granted_by: null });
    expect(revoked.revoked_at).toBeInstanceOf(Date);
    await expect(
      revokeCapability(db.sql, { userId: user.id, capability: "custom_verifier" }),
    ).rejects.toMatchObject({
      code: "not_found",
    });
  });
});
