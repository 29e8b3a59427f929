import type { RunnerOptions } from "graphile-worker";
import type { Pool } from "./connect-sql.ts";

/**
 * The graphile-worker connection settings for the database `sql` is connected to. graphile-worker
 * speaks through node-postgres, not through our `postgres` client, so it gets its own small pool
 * on the same server, database and role; jobs it reads were added by our transactions.
 *
 * `asyncCommit`: its commits (a job taken, a job completed) do not wait for the disk. A crash that
 * loses one only runs a job again, which every task allows (a verification run already finished
 * is skipped); the WAL is written in order, so the completion of a job is never durable before
 * the verdict its task committed synchronously. It halves the disk flushes of a builtin run.
 *
 * `genericPlans`: its sessions plan each of graphile-worker's prepared statements once
 * (`plan_cache_mode`), as genericPlans does for our own statements. Under the default mode
 * PostgreSQL planned `get_job` afresh on most calls (0.66 ms of planning, a custom plan always
 * looking a little cheaper) and the completion of a job too (0.12 ms), once per batch of runs.
 * Its statements find jobs by key or walk the index of available jobs in priority order, the
 * plan each generic plan is.
 */
export function workerConnection(
  sql: Pool,
  max = 4,
  settings: { asyncCommit?: boolean; genericPlans?: boolean } = {},
): Pick<RunnerOptions, "connectionString" | "maxPoolSize"> {
  const { host, port, database, user, pass, path } = sql.options as unknown as {
    host: string[];
    port: number[];
    database: string;
    user: string;
    pass: string | null;
    path: string | false;
  };
  const url = new URL("postgres://localhost");
  url.username = encodeURIComponent(user);
  if (pass) url.password = encodeURIComponent(pass);
  url.pathname = `/${encodeURIComponent(database)}`;
  if (path) {
    // A Unix socket: node-postgres takes its directory as `host`.
    url.searchParams.set("host", path.replace(/\/\.s\.PGSQL\.\d+$/, ""));
  } else {
    url.hostname = host[0] ?? "localhost";
    url.port = String(port[0] ?? 5432);
  }
  const options = [
    ...(settings.asyncCommit ? ["-c synchronous_commit=off"] : []),
    ...(settings.genericPlans ? ["-c plan_cache_mode=force_generic_plan"] : []),
  ];
  if (options.length > 0) url.searchParams.set("options", options.join(" "));
  // Named apart from the service's own pool, so pg_stat_activity (and the metrics) tell them apart.
  url.searchParams.set("application_name", "svc-worker");
  return { connectionString: url.toString(), maxPoolSize: max };
}
