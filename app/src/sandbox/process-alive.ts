import { readFileSync } from "node:fs";

/**
 * Whether a process with this id is running. Signal 0 checks existence without signalling; an
 * exited process that its parent has not reaped yet (a zombie, state Z in /proc on Linux) is
 * not running. Stopped servers linger as zombies for a while where init reaps slowly.
 */
export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    if ((error as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const state = stat.charAt(stat.lastIndexOf(")") + 2);
    return state !== "Z" && state !== "X";
  } catch {
    return true; // no /proc (macOS): existence is all we can know
  }
}
