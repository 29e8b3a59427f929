import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { expect, it } from "vitest";
import { connectSql } from "../../../src/core/db/connect-sql.ts";
import { migrate } from "../../../src/core/db/migrate.ts";
import { pendingMigrations } from "../../../src/core/db/pending-migrations.ts";
import { type Migration, readMigrations } from "../../../src/core/db/read-migrations.ts";
import { createTestDatabase, describeWithDatabase, silentLog } from "../../support/test-database.ts";

function extraMigration(id: number, sql: string): Migration {
  return {
    id,
    name: `${String(id).padStart(3, "0")}_extra`,
    sql,
    contentHash: `sha256:${"0".repeat(63)}${id}`,
  };
}

describeWithDatabase("migrate", () => {
  it("applies every migration once, records it, and does nothing the second time", async () => {
    const db = await createTestDatabase({ migrated: false });
    try {
      const all = readMigrations().map((m) => m.name);
      expect(await pendingMigrations(db.sql)).toEqual(all);
      expect(await migrate(db.sql)).toEqual(all);
      expect(await migrate(db.sql)).toEqual([]);
      expect(await pendingMigrations(db.sql)).toEqual([]);
      const rows = await db.sql`select id, name, content_hash from svc_migrations order by id`;
      expect(rows.map((r) => r.name)).toEqual(all);
      expect(rows[0]?.content_hash).toBe(readMigrations()[0]?.contentHash);
    } finally {
      await db.drop();
    }
  });

  it("applies each migration exactly once when two connections migrate at the same time", async () => {
    const db = await createTestDatabase({ migrated: false });
    const other = connectSql(db.url, silentLog);
    try {
      const [first, second] = await Promise.all([migrate(db.sql), migrate(other)]);
      expect([...first, ...second].sort()).toEqual(readMigrations().map((m) => m.name));
      const [count] = await db.sql`select count(*)::int as n from svc_migrations`;
      expect(count?.n).toBe(readMigrations().length);
    } finally {
      await other.end();
      await db.drop();
    }
  });

  it("rolls back a failing migration entirely and records nothing for it", async () => {
    const db = await createTestDatabase();
    try {
      const broken = extraMigration(
        readMigrations().length + 1,
        "create table half_done (x int); select 1/0;",
      );
      await expect(migrate(db.sql, [...readMigrations(), broken])).rejects.toThrow(/division by zero/);
      const [table] = await db.sql`select to_regclass('half_done') as name`;
      expect(table?.name).toBeNull();
      expect(await pendingMigrations(db.sql, [...readMigrations(), broken])).toEqual([broken.name]);
    } finally {
      await db.drop();
    }
  });

  it("refuses to run when an applied migration's file was edited", async () => {
    const db = await createTestDatabase();
    try {
      const edited = readMigrations().map((m, i) =>
        i === 0 ? { ...m, contentHash: `sha256:${"f".repeat(64)}` } : m,
      );
      await expect(migrate(db.sql, edited)).rejects.toThrow(/001_users was edited after it was applied/);
    } finally {
      await db.drop();
    }
  });
});

it("reads migrations in order of their numbers, a skipped number allowed, and refuses a misnamed file", async () => {
  expect(readMigrations()[0]).toMatchObject({ id: 1, name: "001_users" });
  const dir = await mkdtemp(join(tmpdir(), "svc-migrations-"));
  try {
    await writeFile(join(dir, "001_first.sql"), "select 1;");
    await writeFile(join(dir, "003_third.sql"), "select 3;");
    // Each branch is given its own number before they merge: 003 may land before 002.
    expect(readMigrations(pathToFileURL(`${dir}/`)).map((m) => [m.id, m.name])).toEqual([
      [1, "001_first"],
      [3, "003_third"],
    ]);
    await writeFile(join(dir, "3_bad.sql"), "select 3;");
    expect(() => readMigrations(pathToFileURL(`${dir}/`))).toThrow(/3_bad.sql is misnamed/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
