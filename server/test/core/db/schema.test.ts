import { createHash } from "node:crypto";
import { expect, it } from "vitest";
import { describeWithDatabase, useTestDatabase } from "../../support/test-database.ts";

/**
 * What migration 001 enforces in the database itself, whatever the code above it does: id and
 * enum formats by CHECK constraints, immutable and write-once columns by triggers.
 */
const hash = (text: string) => `sha256:${createHash("sha256").update(text).digest("hex")}`;

describeWithDatabase("schema 001", () => {
  const db = useTestDatabase();

  async function user(id: string, handle: string): Promise<void> {
    await db.sql`insert into users (id, handle) values (${id}, ${handle})`;
  }
  async function token(
    id: string,
    userId: string,
    scopes: string[],
    capabilities: string[] = [],
  ): Promise<void> {
    await db.sql`
      insert into api_tokens (id, user_id, prefix, token_hash, scopes, capabilities)
      values (${id}, ${userId}, ${`svc_${id.slice(-8)}`}, ${hash(id)}, ${scopes}, ${capabilities})`;
  }

  it("refuses ids, handles and enums that break their patterns", async () => {
    await expect(user("usr_UPPER0000000", "a")).rejects.toThrow(/users_id_format/);
    await expect(user("usr_short", "a")).rejects.toThrow(/users_id_format/);
    await expect(user("usr_0123456789", "Not-Lower")).rejects.toThrow(/users_handle_format/);
    await expect(user("usr_0123456789", "double--hyphen")).rejects.toThrow(/users_handle_format/);
    await user("usr_schema000001", "schema-one");
    await expect(
      db.sql`insert into user_capabilities (user_id, capability) values ('usr_schema000001', 'root')`,
    ).rejects.toThrow(/user_capabilities_capability/);
    await expect(
      db.sql`insert into organizations (id, slug, name) values ('org_x', 'o', 'O')`,
    ).rejects.toThrow(/organizations_id_format/);
  });

  it("keeps revoked_at write-once: set once, never changed or cleared", async () => {
    await user("usr_schema000002", "schema-two");
    await token("tok_schema000002", "usr_schema000002", ["read"]);
    await db.sql`update api_tokens set revoked_at = now() where id = 'tok_schema000002'`;
    await expect(
      db.sql`update api_tokens set revoked_at = now() + interval '1 hour' where id = 'tok_schema000002'`,
    ).rejects.toThrow(/api_tokens.revoked_at is write-once and already set/);
    await expect(
      db.sql`update api_tokens set revoked_at = null where id = 'tok_schema000002'`,
    ).rejects.toThrow(/write-once/);
  });

  it("never lets a token's owner, hash, scopes or capabilities change", async () => {
    await user("usr_schema000003", "schema-three");
    await token("tok_schema000003", "usr_schema000003", ["read"]);
    await expect(
      db.sql`update api_tokens set scopes = '{read,contribute}' where id = 'tok_schema000003'`,
    ).rejects.toThrow(/api_tokens.scopes never changes/);
    await expect(
      db.sql`update api_tokens set token_hash = ${hash("other")} where id = 'tok_schema000003'`,
    ).rejects.toThrow(/api_tokens.token_hash never changes/);
  });

  it("refuses contribute without read, unknown scopes, and a capability the user does not hold", async () => {
    await user("usr_schema000004", "schema-four");
    await expect(token("tok_schema000004", "usr_schema000004", ["contribute"])).rejects.toThrow(
      /api_tokens_scopes/,
    );
    await expect(token("tok_schema000004", "usr_schema000004", ["read", "admin"])).rejects.toThrow(
      /api_tokens_scopes/,
    );
    await expect(token("tok_schema000004", "usr_schema000004", ["read"], ["author"])).rejects.toThrow(
      /does not hold capability author/,
    );
    await db.sql`insert into user_capabilities (user_id, capability) values ('usr_schema000004', 'author')`;
    await token("tok_schema000004", "usr_schema000004", ["read"], ["author"]);
  });

  it("keeps a capability grant's revocation write-once and allows one live grant per capability", async () => {
    await user("usr_schema000005", "schema-five");
    await db.sql`insert into user_capabilities (user_id, capability) values ('usr_schema000005', 'author')`;
    await expect(
      db.sql`insert into user_capabilities (user_id, capability) values ('usr_schema000005', 'author')`,
    ).rejects.toThrow(/user_capabilities_live/);
    await db.sql`update user_capabilities set revoked_at = now() where user_id = 'usr_schema000005'`;
    await expect(
      db.sql`update user_capabilities set revoked_by = 'usr_schema000005' where user_id = 'usr_schema000005'`,
    ).rejects.toThrow(/user_capabilities.revoked_by is write-once/);
    await expect(
      db.sql`update user_capabilities set granted_at = now() where user_id = 'usr_schema000005'`,
    ).rejects.toThrow(/user_capabilities.granted_at never changes/);
    // After revocation the capability can be granted again, as a new record.
    await db.sql`insert into user_capabilities (user_id, capability) values ('usr_schema000005', 'author')`;
    const [count] =
      await db.sql`select count(*)::int as n from user_capabilities where user_id = 'usr_schema000005'`;
    expect(count?.n).toBe(2);
  });
});
