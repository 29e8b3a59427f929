import { onExit } from "signal-exit";

/** What must run synchronously when the process ends without closing its pools. */
const cleanups = new Set<() => void>();
let unhook: (() => void) | undefined;

function runCleanups(): void {
  for (const cleanup of cleanups) {
    try {
      cleanup();
    } catch {
      // One pool's failed cleanup must not stop the others' as the process ends.
    }
  }
  cleanups.clear();
  unhook = undefined;
}

/**
 * Runs `cleanup` when the process ends without its pools being closed, until the returned function
 * is called (a pool's close): at exit, and on a fatal signal such as Ctrl-C in `svc test`, which
 * otherwise ends Node without its exit listeners and would leave the pools' disks loop-mounted.
 * signal-exit (a well-kept library npm's own tools use) re-raises the signal afterwards, and leaves
 * a signal alone when the process listens for it itself (`svc-server` closes its pools on SIGTERM).
 * Every warm pool of the process shares one hook, so many pools never pass Node's listener limit.
 */
export function onProcessExit(cleanup: () => void): () => void {
  unhook ??= listenFirst(() => onExit(runCleanups));
  cleanups.add(cleanup);
  return () => {
    cleanups.delete(cleanup);
    if (cleanups.size === 0 && unhook !== undefined) {
      unhook();
      unhook = undefined;
    }
  };
}

/**
 * Installs a hook, then moves the signal listeners it added in front of the process's own.
 * signal-exit decides whether the process handles a signal by counting its listeners when the
 * signal arrives; a `process.once` listener that ran before it has removed itself by then, so
 * signal-exit took the signal for unhandled, re-raised it and killed `svc-server worker` in the
 * middle of its graceful stop. Listening first, it sees every listener the process has.
 */
function listenFirst(install: () => () => void): () => void {
  const before = new Map<string, Set<NodeJS.SignalsListener>>();
  for (const name of process.eventNames()) {
    if (typeof name === "string" && name.startsWith("SIG")) {
      before.set(name, new Set(process.listeners(name as NodeJS.Signals)));
    }
  }
  const uninstall = install();
  for (const name of process.eventNames()) {
    if (typeof name !== "string" || !name.startsWith("SIG")) continue;
    const had = before.get(name) ?? new Set();
    for (const listener of process.listeners(name as NodeJS.Signals)) {
      if (had.has(listener)) continue;
      process.removeListener(name, listener);
      process.prependListener(name as NodeJS.Signals, listener);
    }
  }
  return uninstall;
}
