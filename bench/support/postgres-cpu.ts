import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

const ticksPerSecond = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"]).toString()) || 100;
  } catch {
    return 100;
  }
})();

/**
 * CPU time used so far by every PostgreSQL process of this machine (its backends, WAL writer,
 * checkpointer...), in milliseconds, from /proc; null where there is no /proc. It measures the
 * bench's database only when that server is local and nothing else uses it: a bench prints the
 * difference over its measurement beside the node process's own CPU, a figure that depends less
 * on the machine's load than a rate does.
 */
export function postgresCpuMs(): number | null {
  let pids: string[];
  try {
    pids = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
  } catch {
    return null;
  }
  let ticks = 0;
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      if (!stat.includes(" (postgres) ")) continue;
      // Fields after the command: state is field 3, utime and stime fields 14 and 15.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // The process ended meanwhile.
    }
  }
  return (ticks * 1000) / ticksPerSecond;
}
