import { expect, it } from "vitest";
import { describeWithDatabase, useTestDatabase } from "../../support/test-database.ts";

describeWithDatabase("connectSql", () => {
  const db = useTestDatabase({ migrated: false });

  it("opens every session with JIT and parallel workers off and the service's application name", async () => {
    // Several queries at once, so the pool opens several sessions and each one is checked.
    const sessions = await Promise.all(
      Array.from(
        { length: 4 },
        () => db.sql`
          select pg_backend_pid() as pid, current_setting('jit') as jit,
            current_setting('max_parallel_workers_per_gather') as workers,
            current_setting('application_name') as name, pg_sleep(0.05)`,
      ),
    );
    for (const [session] of sessions) {
      expect(session).toMatchObject({ jit: "off", workers: "0", name: "svc" });
    }
  });
});
