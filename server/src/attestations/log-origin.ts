import type { Sql } from "../core/db/connect-sql.ts";

/**
 * The log's origin, the first line of every checkpoint: fixed when the log is first used, from
 * SVC_LOG_ORIGIN, else the service's public host and "/log" (docs/attestations.md). Changing the
 * setting later changes nothing: a log's origin is its name for good.
 */
export async function logOrigin(sql: Sql, baseUrl: string | undefined): Promise<string> {
  const [row] = await sql<{ origin: string }[]>`select origin from transparency_log`;
  if (row) return row.origin;
  const origin = defaultOrigin(baseUrl);
  await sql`insert into transparency_log (origin) values (${origin}) on conflict do nothing`;
  const [stored] = await sql<{ origin: string }[]>`select origin from transparency_log`;
  return stored!.origin;
}

function defaultOrigin(baseUrl: string | undefined): string {
  const configured = process.env.SVC_LOG_ORIGIN?.trim();
  if (configured && /^[\x21-\x7e]{1,200}$/.test(configured)) return configured;
  if (baseUrl) {
    try {
      return `${new URL(baseUrl).host}/log`;
    } catch {}
  }
  return "svc.localhost/log";
}
