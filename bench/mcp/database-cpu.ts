import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import type { Pool } from "../../server/src/core/db/connect-sql.ts";

/** Clock ticks per second of /proc's CPU times (`getconf CLK_TCK`; 100 on Linux). */
const TICKS = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/**
 * The CPU the PostgreSQL backends serving this database have used so far, in milliseconds, read
 * from /proc (user + system of each backend); null when the server is not on this machine or its
 * processes are not readable. A call's database cost is the difference over a run divided by its
 * calls: the part of a call the server process's own CPU leaves out, and on a small machine the
 * part that competes with it for the same cores. Backends that end during a run lose their share.
 */
export async function databaseCpuMs(sql: Pool): Promise<number | null> {
  const rows = await sql<{ pid: number }[]>`
    select pid from pg_stat_activity where datname = current_database()`;
  let ticks = 0;
  try {
    for (const { pid } of rows) {
      // Fields after the parenthesised command name: utime and stime are the 12th and 13th.
      const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
      ticks += Number(fields[11]) + Number(fields[12]);
    }
  } catch {
    return null;
  }
  return (ticks / TICKS) * 1000;
}
