/** What must run synchronously when the process exits without closing its pools. */
const cleanups = new Set<() => void>();

function runCleanups(): void {
  for (const cleanup of cleanups) {
    try {
      cleanup();
    } catch {
      // One pool's failed cleanup must not stop the others' at exit.
    }
  }
  cleanups.clear();
}

/**
 * Runs `cleanup` when the process exits, until the returned function is called (a pool's close).
 * Every warm pool of the process shares one `exit` listener: a process that opens many pools (a
 * test file, a bench) never passes Node's listener limit, and its warning stays meaningful.
 */
export function onProcessExit(cleanup: () => void): () => void {
  if (cleanups.size === 0) process.once("exit", runCleanups);
  cleanups.add(cleanup);
  return () => {
    cleanups.delete(cleanup);
    if (cleanups.size === 0) process.removeListener("exit", runCleanups);
  };
}
