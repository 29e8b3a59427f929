import { randomBytes } from "node:crypto";
import type { Sql } from "../db/connect-sql.ts";
import { MIN_SECRET_BYTES, type SigningSecret, signingKey } from "./signing-key.ts";

/**
 * The deployment's URL-signing secret: `SVC_SIGNING_SECRET` when set (checked for length), else
 * the one stored in `service_secrets`, made on first start. Storing it in the database keeps every
 * replica and every restart signing alike without an operator step.
 */
export async function loadSigningSecret(sql: Sql, configured: string | undefined): Promise<SigningSecret> {
  if (configured) {
    signingKey(configured);
    return configured;
  }
  await sql`
    insert into service_secrets (name, secret) values ('url_signing', ${randomBytes(MIN_SECRET_BYTES)})
    on conflict (name) do nothing`;
  const [row] = await sql<
    { secret: Uint8Array }[]
  >`select secret from service_secrets where name = 'url_signing'`;
  return new Uint8Array(row!.secret);
}
