import type { Sql } from "../db/connect-sql.ts";
import { ServiceError } from "../errors/service-error.ts";

/**
 * The address a server answers at, as `serve` knows it: SVC_BASE_URL when set, else the address
 * it listens on, unless that is every interface (0.0.0.0, ::), which names no host a link can use.
 * Returns the URL, or why there is none.
 */
export function publicAddressOf(
  configured: string | undefined,
  listening: string,
): { url: string } | { unknownBecause: string } {
  if (configured) return { url: configured };
  const { hostname, origin } = new URL(listening);
  if (hostname === "0.0.0.0" || hostname === "[::]") {
    return {
      unknownBecause: `the server listens on every interface (${listening}) and SVC_BASE_URL is unset`,
    };
  }
  return { url: origin };
}

/** Records, at `serve`'s start, the address operator commands build links from (the latest start wins). */
export async function recordPublicAddress(
  sql: Sql,
  address: { url: string } | { unknownBecause: string },
  now: Date,
): Promise<void> {
  const url = "url" in address ? address.url : null;
  const why = "unknownBecause" in address ? address.unknownBecause : null;
  await sql`
    insert into service_public_address (singleton, base_url, unknown_because, recorded_at)
    values (true, ${url}, ${why}, ${now})
    on conflict (singleton) do update
      set base_url = excluded.base_url, unknown_because = excluded.unknown_because, recorded_at = excluded.recorded_at`;
}

/**
 * The service's public base URL as its last `serve` recorded it; `unavailable` saying why and what
 * to do when no server has recorded one, or the last could not know its own.
 */
export async function readPublicAddress(sql: Sql): Promise<string> {
  const [row] = await sql<{ base_url: string | null; unknown_because: string | null }[]>`
    select base_url, unknown_because from service_public_address`;
  if (row?.base_url) return row.base_url;
  const why = row?.unknown_because ?? "no `svc-server serve` has started on this database yet";
  throw new ServiceError(
    "unavailable",
    `the service's public address is not known: ${why}. Start \`svc-server serve\` with SVC_BASE_URL set to the address users reach it at; links are built from what the running service records, not from this shell's PORT or SVC_BASE_URL`,
  );
}
