import type postgres from "postgres";
import type { Pool } from "./connect-sql.ts";

/** Sends a transaction's last statement with its COMMIT: what the statement returns. */
export type CommitWith = <T extends readonly postgres.Row[]>(
  statement: postgres.PendingQuery<T>,
) => Promise<T>;

/**
 * Runs `fn` in a transaction on one connection of `pool`, like `pool.begin`, with two round trips
 * fewer: BEGIN goes out in the same write as `fn`'s first statement, and when `fn` ends with
 * `commitWith(statement)`, COMMIT goes out in the same write as that statement (`pool.begin`
 * waits for BEGIN before `fn` starts, and for the last statement before it sends COMMIT). On a
 * hot path each round trip is a wake-up of both processes, more CPU than a short statement.
 * Nothing changes for the transaction: if the last statement fails, PostgreSQL ends the aborted
 * transaction at the COMMIT sent after it (a rollback) and commitWith throws the statement's
 * error; if `fn` throws otherwise, the transaction is rolled back. Statements `fn` sends without
 * awaiting the one before also share a write (postgres.js pipelines them), in the order they are
 * started: a postgres.js statement starts when awaited or `.execute()`d, not when written, so
 * `Promise.all([a, commitWith(b)])` sends b (and COMMIT) before a: start a first (`a.execute()`).
 */
export async function pipelinedTransaction<T>(
  pool: Pool,
  fn: (tx: postgres.ReservedSql, commitWith: CommitWith) => Promise<T>,
): Promise<T> {
  const tx = await pool.reserve();
  let ended = false;
  const commitWith: CommitWith = async (statement) => {
    ended = true;
    const [last, commit] = await Promise.allSettled([statement, tx`commit`]);
    if (last.status === "rejected") throw last.reason;
    if (commit.status === "rejected") throw commit.reason;
    return last.value;
  };
  try {
    // Sent when fn's first statement is: postgres.js writes what is queued in one turn together.
    const begun = tx`begin`.execute().then(
      () => null,
      (error: unknown) => ({ error }),
    );
    const result = await fn(tx, commitWith);
    const failed = await begun;
    if (failed !== null) throw failed.error;
    if (!ended) {
      ended = true;
      await tx`commit`;
    }
    return result;
  } catch (error) {
    if (!ended) await tx`rollback`.catch(() => {});
    throw error;
  } finally {
    tx.release();
  }
}
