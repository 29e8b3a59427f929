import net from "node:net";
import postgres from "postgres";
import { beforeAll, expect, it } from "vitest";
import { pipelinedTransaction } from "../../../src/core/db/pipelined-transaction.ts";
import { describeWithDatabase, useTestDatabase } from "../../support/test-database.ts";

/**
 * pipelinedTransaction is a transaction like `sql.begin` (all or nothing, the first statement
 * inside it), with BEGIN sent with the first statement and COMMIT with the last.
 */
describeWithDatabase("a pipelined transaction", () => {
  const db = useTestDatabase();
  beforeAll(async () => {
    await db.sql`create table pipelined (id int primary key, note text not null)`;
  });
  const notes = async () =>
    (await db.sql<{ id: number }[]>`select id from pipelined order by id`).map((row) => row.id);
  const openTransactions = async () => {
    const [row] = await db.sql<{ open: number }[]>`
      select count(*)::int as open from pg_stat_activity
      where datname = current_database() and state like 'idle in transaction%'`;
    return row!.open;
  };

  it("commits every statement, the last one's with it", async () => {
    const last = await pipelinedTransaction(db.sql, async (tx, commitWith) => {
      await tx`insert into pipelined values (1, 'first')`;
      return await commitWith(tx`insert into pipelined values (2, 'last') returning id`);
    });
    expect(last).toEqual([{ id: 2 }]);
    const without = await pipelinedTransaction(db.sql, async (tx) => {
      await tx`insert into pipelined values (3, 'no commitWith')`;
      return "done";
    });
    expect(without).toBe("done");
    expect(await notes()).toEqual([1, 2, 3]);
  });

  it("runs statements in the order they were started, a setting before the last statement included", async () => {
    const seen = await pipelinedTransaction(db.sql, async (tx, commitWith) => {
      const setting = tx`select set_config('svc.pipelined', 'on', true)`.execute();
      const [rows] = await Promise.all([
        commitWith(tx<{ value: string }[]>`select current_setting('svc.pipelined', true) as value`),
        setting,
      ]);
      return rows[0]!.value;
    });
    expect(seen).toBe("on");
    // Set for the transaction only.
    const [after] = await db.sql<
      { value: string | null }[]
    >`select current_setting('svc.pipelined', true) as value`;
    expect(after!.value ?? "").toBe("");
  });

  it("keeps nothing when the last statement fails, and throws its error", async () => {
    const failing = pipelinedTransaction(db.sql, async (tx, commitWith) => {
      await tx`insert into pipelined values (10, 'first')`;
      return await commitWith(tx`insert into pipelined values (11, null)`);
    });
    await expect(failing).rejects.toMatchObject({ code: "23502" });
    expect(await notes()).toEqual([1, 2, 3]);
    expect(await openTransactions()).toBe(0);
  });

  it("keeps nothing when fn throws, its first statement included", async () => {
    const thrown = pipelinedTransaction(db.sql, async (tx) => {
      await tx`insert into pipelined values (20, 'first')`;
      throw new Error("refused after the first statement");
    });
    await expect(thrown).rejects.toThrow("refused after the first statement");
    const failedFirst = pipelinedTransaction(db.sql, async (tx) => {
      await Promise.all([
        tx`insert into pipelined values (21, 'x')`,
        tx`insert into pipelined values (1, 'taken')`,
      ]);
    });
    await expect(failedFirst).rejects.toMatchObject({ code: "23505" });
    expect(await notes()).toEqual([1, 2, 3]);
    expect(await openTransactions()).toBe(0);
  });

  it("sends BEGIN with the first statement and COMMIT with the last: two writes for two statements", async () => {
    let writes = 0;
    // postgres.js's `socket` option (a socket of the caller's making), missing from its types.
    const options = {
      max: 1,
      onnotice: () => {},
      socket: ({ host, port }: { host: string[]; port: number[] }) => {
        const socket = net.connect({ host: host[0]!, port: port[0]! });
        const write = socket.write.bind(socket) as (...args: unknown[]) => boolean;
        socket.write = ((...args: unknown[]) => {
          writes += 1;
          return write(...args);
        }) as typeof socket.write;
        return socket;
      },
    };
    const counted = postgres(db.url, options as postgres.Options<Record<string, never>>);
    try {
      const transaction = (first: number) =>
        pipelinedTransaction(counted, async (tx, commitWith) => {
          await tx`insert into pipelined values (${first}, 'first')`;
          await commitWith(tx`insert into pipelined values (${first + 1}, 'last')`);
        });
      // The first time prepares the statements on the connection (a round trip each).
      await transaction(30);
      writes = 0;
      await transaction(32);
      expect(writes).toBe(2);
      expect(await notes()).toEqual([1, 2, 3, 30, 31, 32, 33]);
    } finally {
      await counted.end({ timeout: 5 });
    }
  });
});
