import type { Logger } from "pino";
import postgres from "postgres";

/**
 * Anything that runs queries: the pool or a transaction. Database functions take one as their
 * first argument, so a caller can run several of them in one transaction.
 */
export type Sql = postgres.ISql;

/** The connection pool itself: it can begin transactions and be ended. */
export type Pool = postgres.Sql;

/** A pool on `url` whose server notices go to the log at debug level. */
export function connectSql(url: string, log: Logger, options: { max?: number } = {}): Pool {
  return postgres(url, {
    max: options.max ?? 10,
    onnotice: (notice) => log.debug({ notice: notice.message }, "postgres notice"),
    // JIT compilation costs 200-350 ms on lookups whose cost the planner overestimates (the
    // visibility checks' jsonb containment), far more than it ever saves on this service's
    // short queries.
    // Parallel workers likewise: the planner underestimates how many rows pass the visibility
    // filter, so a keyset page that an index walk reads in 0.2 ms got a Gather Merge whose
    // worker start-up took 200 ms on a busy 2-core machine (docs/operations.md, "Where the time
    // goes: MCP and search").
    // The value is a string: postgres.js leaves out every falsy startup parameter, so a number 0
    // never reached the server and every session kept the default of 2 workers.
    connection: { application_name: "svc", jit: "off", max_parallel_workers_per_gather: "0" },
  });
}
