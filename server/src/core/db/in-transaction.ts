import type postgres from "postgres";
import type { Sql } from "./connect-sql.ts";

/**
 * Runs `fn` in a transaction: a new one on a pool, a savepoint inside a caller's transaction,
 * so a function that needs atomicity composes into a larger transaction.
 */
export async function inTransaction<T>(
  sql: Sql,
  fn: (tx: postgres.TransactionSql) => Promise<T>,
): Promise<T> {
  if ("begin" in sql) return (await (sql as postgres.Sql).begin(fn)) as T;
  return (await (sql as postgres.TransactionSql).savepoint(fn)) as T;
}
