import type { Sql } from "postgres";

/** Runs tasks with the same key one after another; tasks with different keys run concurrently. */
export type SerializeByKey = <T>(key: string, task: () => Promise<T>) => Promise<T>;

/**
 * Serialises tasks by key within this process (a commit's pull_request and check_suite events
 * arrive together; the second then finds the first's check runs and posts nothing new).
 */
export function serializeByKey(): SerializeByKey {
  const tails = new Map<string, Promise<unknown>>();
  return (key, task) => {
    const previous = tails.get(key) ?? Promise.resolve();
    const run = previous.then(task, task);
    const tail = run.catch(() => {});
    tails.set(key, tail);
    tail.then(() => {
      if (tails.get(key) === tail) tails.delete(key);
    });
    return run;
  };
}

/** The advisory-lock class of the App's commit locks (the second key is the commit's hash). */
const COMMIT_LOCK_CLASS = 0x5356_4743;

/**
 * Serialises tasks by key across every replica over one PostgreSQL: within this process first
 * (so a process holds one connection per key), then under a session advisory lock on a reserved
 * connection for the task's length. A replica that dies loses its connection and with it the lock.
 */
export function serializeAcrossReplicas(sql: Sql): SerializeByKey {
  const local = serializeByKey();
  return (key, task) =>
    local(key, async () => {
      const connection = await sql.reserve();
      try {
        await connection`select pg_advisory_lock(${COMMIT_LOCK_CLASS}, hashtext(${key}))`;
        try {
          return await task();
        } finally {
          await connection`select pg_advisory_unlock(${COMMIT_LOCK_CLASS}, hashtext(${key}))`;
        }
      } finally {
        connection.release();
      }
    });
}
