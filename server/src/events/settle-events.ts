import type { Pool } from "../core/db/connect-sql.ts";

/**
 * Gives the committed pending events their log ids (the `settle_events()` function of migration
 * 032): every reader of the log calls it before reading, so what committed before the call is
 * read, in commit order. It is its own transaction (it holds the settlers' lock to its commit):
 * never call it inside another one. Returns how many events it settled.
 */
export async function settleEvents(sql: Pool): Promise<number> {
  const [row] = await sql<{ settled: number }[]>`select settle_events() as settled`;
  return row?.settled ?? 0;
}
