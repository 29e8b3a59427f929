import { expect, it } from "vitest";
import { migrate } from "../../../src/core/db/migrate.ts";
import { pendingMigrations } from "../../../src/core/db/pending-migrations.ts";
import { waitForSchema } from "../../../src/core/db/wait-for-schema.ts";
import { describeWithDatabase, silentLog, useTestDatabase } from "../../support/test-database.ts";

describeWithDatabase("waitForSchema (SVC_MIGRATE=wait)", () => {
  const db = useTestDatabase({ migrated: false });

  it("gives up on an unmigrated database, naming what is missing and the command that adds it", async () => {
    const error = await waitForSchema(db.sql, silentLog, { timeoutMs: 50, pollMs: 10 }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(
      /still lacks 001_.*graphile-worker's schema after 0 s: run svc-server migrate/,
    );
  });

  it("returns once svc-server migrate has brought the schema up to date, and at once afterwards", async () => {
    let resolved = false;
    const waiting = waitForSchema(db.sql, silentLog, { timeoutMs: 60_000, pollMs: 20 }).then(async () => {
      resolved = true;
      // What the waiter saw as ready is whole: nothing pending at the moment it returned.
      return pendingMigrations(db.sql);
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(resolved).toBe(false);
    await migrate(db.sql);
    expect(await waiting).toEqual([]);
    await waitForSchema(db.sql, silentLog, { timeoutMs: 0 });
  });
});
