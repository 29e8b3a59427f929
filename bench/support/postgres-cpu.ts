import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import type postgres from "postgres";

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
  let ms = 0;
  for (const pid of pids) ms += processCpuMs(pid, true) ?? 0;
  return ms;
}

/** CPU time used so far by process `pid`, in milliseconds; null when it is gone (or, with `onlyPostgres`, not a postgres). */
export function processCpuMs(pid: string | number, onlyPostgres = false): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    if (onlyPostgres && !stat.includes(" (postgres) ")) return null;
    // Fields after the command: state is field 3, utime and stime fields 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond;
  } catch {
    return null;
  }
}

/**
 * The CPU, in milliseconds, of the PostgreSQL backends connected to `sql`'s database (from
 * pg_stat_activity and /proc), per backend pid: unlike postgresCpuMs it leaves out the other
 * databases of a shared server. Null when the server is not on this machine (no such /proc entry).
 * The difference of two readings (backendsCpuSince) is what this database's sessions used between
 * them; the server's shared processes (WAL writer, checkpointer) are not counted.
 */
export async function backendsCpu(sql: postgres.Sql): Promise<Map<number, number> | null> {
  const rows = await sql<{ pid: number }[]>`
    select pid from pg_stat_activity where datname = current_database() and backend_type = 'client backend'`;
  const cpu = new Map<number, number>();
  for (const { pid } of rows) {
    const ms = processCpuMs(pid);
    if (ms !== null) cpu.set(pid, ms);
  }
  return cpu.size === 0 ? null : cpu;
}

/** The backends' CPU used since `before` (a backendsCpu reading), in milliseconds: new backends count whole. */
export async function backendsCpuSince(
  sql: postgres.Sql,
  before: Map<number, number> | null,
): Promise<number | null> {
  const after = await backendsCpu(sql);
  if (before === null || after === null) return null;
  let ms = 0;
  for (const [pid, used] of after) ms += used - (before.get(pid) ?? 0);
  return ms;
}
