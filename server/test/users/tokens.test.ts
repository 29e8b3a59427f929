import { createHash } from "node:crypto";
import { expect, it } from "vitest";
import { ServiceError } from "../../src/core/errors/service-error.ts";
import { addUser } from "../../src/users/add-user.ts";
import { authenticate } from "../../src/users/authenticate.ts";
import { grantCapability } from "../../src/users/grant-capability.ts";
import { issueToken } from "../../src/users/issue-token.ts";
import { liveRole } from "../../src/users/live-role.ts";
import { requireCapability } from "../../src/users/require-capability.ts";
import { revokeCapability } from "../../src/users/revoke-capability.ts";
import { revokeToken } from "../../src/users/revoke-token.ts";
import { describeWithDatabase, useTestDatabase } from "../support/test-database.ts";

describeWithDatabase("bearer tokens", () => {
  const db = useTestDatabase();

  it("returns the secret once and stores only its sha256 and public prefix", async () => {
    const user = await addUser(db.sql, { handle: "secret-keeper" });
    const issued = await issueToken(db.sql, "secret-keeper", ["read"]);
    expect(issued.token).toMatch(/^svc_[0-9A-Za-z]{40}$/);
    expect(issued.prefix).toBe(issued.token.slice(0, 12));
    const [row] = await db.sql`select * from api_tokens where user_id = ${user.id}`;
    expect(row?.token_hash).toBe(`sha256:${createHash("sha256").update(issued.token).digest("hex")}`);
    // 1. No column of the token's row holds the secret or its random part.
    const stored = JSON.stringify(row);
    expect(stored).not.toContain(issued.token);
    expect(stored).not.toContain(issued.token.slice(12));
    // 2. Nor does any other table of the database.
    const tables = await db.sql<{ name: string }[]>`
      select quote_ident(table_name) as name from information_schema.tables where table_schema = 'public'`;
    for (const { name } of tables) {
      const rows = await db.sql.unsafe(`select * from ${name}`);
      expect(JSON.stringify(rows)).not.toContain(issued.token.slice(12));
    }
  });

  it("authenticates a token alone or as a Bearer header, and nothing else", async () => {
    await addUser(db.sql, { handle: "bearer" });
    const { token } = await issueToken(db.sql, "bearer", ["contribute"]);
    const principal = await authenticate(db.sql, token);
    expect(principal?.user.handle).toBe("bearer");
    expect(principal?.scopes).toEqual(["read", "contribute"]);
    expect(principal?.capabilities).toEqual([]);
    expect((await authenticate(db.sql, `Bearer ${token}`))?.user.handle).toBe("bearer");
    expect(await authenticate(db.sql, undefined)).toBeNull();
    expect(await authenticate(db.sql, "Bearer nonsense")).toBeNull();
    expect(await authenticate(db.sql, `svc_${"A".repeat(40)}`)).toBeNull();
    expect(await authenticate(db.sql, token.slice(0, -1))).toBeNull();
  });

  it("carries the requested scopes and the capabilities the user holds at issue time, never more", async () => {
    const user = await addUser(db.sql, { handle: "capable" });
    await grantCapability(db.sql, { userId: user.id, capability: "author" });
    const readOnly = await issueToken(db.sql, "capable", ["read"]);
    expect(readOnly).toMatchObject({ scopes: ["read"], capabilities: ["author"] });
    const narrowed = await issueToken(db.sql, "capable", ["contribute", "custom_verifier"]);
    expect(narrowed).toMatchObject({ scopes: ["read", "contribute"], capabilities: [] });
    // A capability granted later is not carried by a token issued before it.
    await grantCapability(db.sql, { userId: user.id, capability: "custom_verifier" });
    expect((await authenticate(db.sql, readOnly.token))?.capabilities).toEqual(["author"]);
    expect((await issueToken(db.sql, "capable", ["read"])).capabilities).toEqual([
      "author",
      "custom_verifier",
    ]);
  });

  it("refuses unknown scopes, an empty request and an unknown handle", async () => {
    await addUser(db.sql, { handle: "picky" });
    await expect(issueToken(db.sql, "picky", ["read", "write"])).rejects.toMatchObject({
      code: "invalid_input",
    });
    await expect(issueToken(db.sql, "picky", [])).rejects.toMatchObject({ code: "invalid_input" });
    await expect(issueToken(db.sql, "picky", ["author"])).rejects.toMatchObject({ code: "invalid_input" });
    await expect(issueToken(db.sql, "nobody", ["read"])).rejects.toMatchObject({ code: "not_found" });
  });

  it("stops authenticating a revoked token; revoking again keeps the first time", async () => {
    await addUser(db.sql, { handle: "revoked" });
    const { token, prefix } = await issueToken(db.sql, "revoked", ["read"]);
    const other = await issueToken(db.sql, "revoked", ["read"]);
    const first = await revokeToken(db.sql, prefix);
    expect(first.prefix).toBe(prefix);
    expect(await authenticate(db.sql, token)).toBeNull();
    expect(await authenticate(db.sql, other.token)).not.toBeNull();
    expect((await revokeToken(db.sql, token)).revoked_at).toEqual(first.revoked_at);
    await expect(revokeToken(db.sql, "svc_00000000")).rejects.toMatchObject({ code: "not_found" });
    await expect(revokeToken(db.sql, "svc_0")).rejects.toMatchObject({ code: "invalid_input" });
  });

  it("applies a revocation on the next request: an already-issued token loses the capability", async () => {
    const user = await addUser(db.sql, { handle: "demoted" });
    await grantCapability(db.sql, { userId: user.id, capability: "author" });
    const { token } = await issueToken(db.sql, "demoted", ["contribute"]);
    await requireCapability(db.sql, user.id, "author");
    await revokeCapability(db.sql, { userId: user.id, capability: "author" });
    expect((await authenticate(db.sql, token))?.capabilities).toEqual([]);
    // The token's stored claim is unchanged; the principal is the claim intersected with live grants.
    const [stored] = await db.sql`select capabilities from api_tokens where user_id = ${user.id}`;
    expect(stored!.capabilities).toEqual(["author"]);
    // Granted again, it comes back to the token that claimed it (never to one that did not).
    await grantCapability(db.sql, { userId: user.id, capability: "author" });
    expect((await authenticate(db.sql, token))?.capabilities).toEqual(["author"]);
    await revokeCapability(db.sql, { userId: user.id, capability: "author" });
    expect((await liveRole(db.sql, user.id)).capabilities).toEqual([]);
    const denied = await requireCapability(db.sql, user.id, "author").catch((error: unknown) => error);
    expect(denied).toBeInstanceOf(ServiceError);
    expect(denied).toMatchObject({ code: "forbidden", status: 403 });
  });
});
