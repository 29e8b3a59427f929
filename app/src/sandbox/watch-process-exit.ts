import { readFile } from "node:fs/promises";

/** How often the host looks at the watched process. */
const POLL_MS = 20;

/**
 * Calls `onExit` once the host process `pid` has ended (gone from /proc, a zombie, or its pid
 * reused by a process started later), looking every POLL_MS. Returns a function that stops
 * watching.
 *
 * Why: Docker ends an exec's output stream, and marks the exec finished, only when every process
 * holding the exec's stdout or stderr has closed it. In a warm container PID 1 is the hold loop,
 * so what a checker leaves behind (a fork bomb's children, a daemon) outlives it and would hold
 * its run open until the wall clock; the docker backend watches the exec's main process instead
 * and kills the container when it ends, as bwrap's supervisor does. An engine on another host
 * shows no such pid here: then nothing is watched and the stream's end rules, as before.
 */
export async function watchProcessExit(pid: number, onExit: () => void): Promise<() => void> {
  const started = await startTime(pid);
  if (started === null) return () => undefined;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const look = async () => {
    const now = await startTime(pid);
    if (stopped) return;
    if (now === null || now !== started) {
      stopped = true;
      onExit();
      return;
    }
    timer = setTimeout(look, POLL_MS);
  };
  timer = setTimeout(look, POLL_MS);
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

/** The process's start time in clock ticks (/proc/<pid>/stat field 22), or null once it has ended. */
async function startTime(pid: number): Promise<string | null> {
  let stat: string;
  try {
    stat = await readFile(`/proc/${pid}/stat`, "utf8");
  } catch {
    return null;
  }
  // The command name (field 2) is in parentheses and may hold spaces or ')': split after the last.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const state = fields[0];
  return state === "Z" || state === "X" ? null : (fields[19] ?? null);
}
