import type { FastifyPluginAsync } from "fastify";
import type { Sql } from "../../core/db/connect-sql.ts";
import { pendingMigrations } from "../../core/db/pending-migrations.ts";
import { readMigrations } from "../../core/db/read-migrations.ts";

/** How long /healthz waits for the database before it answers 503. */
const DATABASE_TIMEOUT_MS = 2_000;

/**
 * `GET /healthz`: 200 `{ok: true}` only while the database answers and carries every migration
 * this code knows; 503 `{ok: false, error}` otherwise, so a load balancer sends no traffic to a
 * server whose database is down or behind, or that is shutting down (`draining`).
 */
export const healthRoutes: FastifyPluginAsync<{ sql: Sql; draining?: () => boolean }> = async (
  app,
  { sql, draining },
) => {
  const migrations = readMigrations();
  app.get("/healthz", async (request, reply) => {
    if (draining?.()) {
      return reply
        .status(503)
        .send({ ok: false, error: { code: "unavailable", message: "this server is shutting down" } });
    }
    let timer: NodeJS.Timeout | undefined;
    try {
      const pending = await Promise.race([
        pendingMigrations(sql, migrations),
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`no answer in ${DATABASE_TIMEOUT_MS} ms`)),
            DATABASE_TIMEOUT_MS,
          );
        }),
      ]);
      if (pending.length === 0) return { ok: true };
      return reply.status(503).send({
        ok: false,
        error: {
          code: "unavailable",
          message: `the database lacks migrations ${pending.join(", ")}: run svc-server migrate`,
        },
      });
    } catch (error) {
      request.log.warn({ err: error }, "health check: database unreachable");
      return reply
        .status(503)
        .send({ ok: false, error: { code: "unavailable", message: "the database is unreachable" } });
    } finally {
      clearTimeout(timer);
    }
  });
};
