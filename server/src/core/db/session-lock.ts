import type postgres from "postgres";
import type { Pool } from "./connect-sql.ts";

/**
 * A session advisory lock held on a connection of its own, for a role one process of the fleet
 * plays at a time (the deliverer of webhooks, the first worker to wake). The connection is taken
 * from `pool` for as long as the lock is held; a process that dies closes it, which releases the
 * lock for another process's next try.
 */
export interface SessionLock {
  /** The connection holding the lock: statements of the role may go through it. */
  connection: postgres.ReservedSql;
  /** Releases the lock and gives the connection back to the pool. */
  release(): Promise<void>;
}

/** Takes the session lock `key` (a bigint as a decimal string) if no one holds it; null if someone does. */
export async function trySessionLock(pool: Pool, key: string): Promise<SessionLock | null> {
  const connection = await pool.reserve();
  try {
    const [row] = await connection<
      { taken: boolean }[]
    >`select pg_try_advisory_lock(${key}::bigint) as taken`;
    if (row?.taken) {
      return {
        connection,
        async release() {
          // A broken connection has lost the lock with its session already.
          await connection`select pg_advisory_unlock(${key}::bigint)`.catch(() => {});
          connection.release();
        },
      };
    }
  } catch {
    // As if held: the caller tries again later.
  }
  connection.release();
  return null;
}

/**
 * Whether `lock` is still held: a connection that broke took the lock with its session, and
 * another process may hold it now. A role's holder asks before acting on it again.
 */
export async function stillHeld(lock: SessionLock): Promise<boolean> {
  return lock.connection`select 1`.then(
    () => true,
    () => false,
  );
}
