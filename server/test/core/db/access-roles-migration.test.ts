import { expect, it } from "vitest";
import { migrate } from "../../../src/core/db/migrate.ts";
import { readMigrations } from "../../../src/core/db/read-migrations.ts";
import { describeWithDatabase, useTestDatabase } from "../../support/test-database.ts";

/**
 * Migration 008 moves trusted_author from a capability to a recorded role with its history,
 * keeps a live trusted author an author, rewrites tokens that claimed it, and records each
 * existing administrator as an operator's grant that `users.is_admin` then mirrors.
 */
describeWithDatabase("migration 008: trusted author and administrator become recorded roles", () => {
  const db = useTestDatabase({ migrated: false });

  it("moves the grants with their history and keeps every user's authority", async () => {
    const all = readMigrations();
    const index = all.findIndex((m) => m.name.startsWith("008_"));
    await migrate(db.sql, all.slice(0, index));
    const sql = db.sql;
    await sql`insert into users (id, handle, is_admin, created_at) values
      ('usr_migrate00001', 'boss', true, '2026-01-01T00:00:00Z'),
      ('usr_migrate00002', 'trusted', false, '2026-01-01T00:00:00Z'),
      ('usr_migrate00003', 'formerly', false, '2026-01-01T00:00:00Z')`;
    await sql`insert into user_capabilities (user_id, capability, granted_by, granted_at) values
      ('usr_migrate00002', 'trusted_author', 'usr_migrate00001', '2026-02-01T00:00:00Z'),
      ('usr_migrate00003', 'trusted_author', null, '2026-02-01T00:00:00Z')`;
    await sql`update user_capabilities set revoked_at = '2026-03-01T00:00:00Z', revoked_by = 'usr_migrate00001'
      where user_id = 'usr_migrate00003'`;
    await sql`insert into api_tokens (id, user_id, prefix, token_hash, scopes, capabilities) values
      ('tok_migrate00001', 'usr_migrate00002', 'svc_AAAAAAAA', ${`sha256:${"a".repeat(64)}`}, '{read}', '{trusted_author}')`;

    await migrate(db.sql);

    expect(
      await sql`select user_id, role, granted_by, granted_at, revoked_by, revoked_at from user_roles order by user_id, role`,
    ).toEqual([
      {
        user_id: "usr_migrate00001",
        role: "administrator",
        granted_by: null,
        granted_at: new Date("2026-01-01T00:00:00Z"),
        revoked_by: null,
        revoked_at: null,
      },
      {
        user_id: "usr_migrate00002",
        role: "trusted_author",
        granted_by: "usr_migrate00001",
        granted_at: new Date("2026-02-01T00:00:00Z"),
        revoked_by: null,
        revoked_at: null,
      },
      {
        user_id: "usr_migrate00003",
        role: "trusted_author",
        granted_by: null,
        granted_at: new Date("2026-02-01T00:00:00Z"),
        revoked_by: "usr_migrate00001",
        revoked_at: new Date("2026-03-01T00:00:00Z"),
      },
    ]);
    // The live trusted author keeps author, granted by the same grantor at the same time.
    expect(
      await sql`select user_id, capability, granted_by, revoked_at from user_capabilities order by user_id`,
    ).toEqual([
      { user_id: "usr_migrate00002", capability: "author", granted_by: "usr_migrate00001", revoked_at: null },
    ]);
    expect((await sql`select capabilities from api_tokens`)[0]!.capabilities).toEqual(["author"]);
    await expect(
      sql`insert into user_capabilities (user_id, capability) values ('usr_migrate00003', 'trusted_author')`,
    ).rejects.toThrow(/user_capabilities_capability/);
    // is_admin mirrors the live grant and is set no other way.
    await expect(sql`update users set is_admin = true where id = 'usr_migrate00002'`).rejects.toThrow(
      /mirrors the live administrator grant/,
    );
    await sql`update user_roles set revoked_at = now() where user_id = 'usr_migrate00001' and role = 'administrator'`;
    expect((await sql`select is_admin from users where id = 'usr_migrate00001'`)[0]!.is_admin).toBe(false);
  });
});
