import { createHash } from "node:crypto";
import type { Sql } from "../core/db/connect-sql.ts";
import { forgetPrincipals } from "../users/principal-cache.ts";

/** What oidc-provider stores for one model instance (a code, a token, a grant, a client...). */
export type OAuthPayload = Record<string, unknown> & {
  grantId?: string;
  uid?: string;
  accountId?: string;
  jti?: string;
  consumed?: number;
};

/** The adapter interface oidc-provider calls for each model (see its docs, "adapter"). */
export interface OAuthAdapter {
  upsert(id: string, payload: OAuthPayload, expiresIn: number): Promise<void>;
  find(id: string): Promise<OAuthPayload | undefined>;
  findByUserCode(userCode: string): Promise<OAuthPayload | undefined>;
  findByUid(uid: string): Promise<OAuthPayload | undefined>;
  consume(id: string): Promise<void>;
  destroy(id: string): Promise<void>;
  revokeByGrantId(grantId: string): Promise<void>;
}

/** The key a model id is stored under: its sha256, so a leaked table holds no usable code or token. */
export function oauthIdHash(id: string): string {
  return createHash("sha256").update(id).digest("hex");
}

/** Models whose id is a bearer secret: a code or a token. */
const SECRET_KINDS = new Set([
  "AccessToken",
  "AuthorizationCode",
  "RefreshToken",
  "ClientCredentials",
  "RegistrationAccessToken",
  "DeviceCode",
  "BackchannelAuthenticationRequest",
  "PushedAuthorizationRequest",
]);

/**
 * oidc-provider's models in PostgreSQL, one row per instance in `oauth_models`. For codes and tokens
 * the payload is stored without `jti` (the secret itself) and given it back on read; expiry and
 * consumption are columns, so an expired row is never returned and a consumed code or refresh
 * token reads back with `consumed` set (which is how the library detects a reused one).
 */
export function oauthAdapter(sql: Sql, kind: string): OAuthAdapter {
  const secretIds = SECRET_KINDS.has(kind);
  const read = (row: { payload: OAuthPayload; consumed_at: Date | null } | undefined, id?: string) => {
    if (!row) return undefined;
    const payload = { ...row.payload };
    if (secretIds && id !== undefined) payload.jti = id;
    if (row.consumed_at) payload.consumed = Math.floor(row.consumed_at.getTime() / 1000);
    return payload;
  };
  return {
    async upsert(id, payload, expiresIn) {
      const stored = { ...payload };
      if (secretIds) delete stored.jti;
      const expiresAt = expiresIn ? new Date(Date.now() + expiresIn * 1000) : null;
      await sql`
        insert into oauth_models (kind, id_hash, payload, grant_id, uid, account_id, expires_at)
        values (${kind}, ${oauthIdHash(id)}, ${sql.json(stored as never)}, ${payload.grantId ?? null},
                ${payload.uid ?? null}, ${payload.accountId ?? null}, ${expiresAt})
        on conflict (kind, id_hash) do update set payload = excluded.payload, grant_id = excluded.grant_id,
          uid = excluded.uid, account_id = excluded.account_id, expires_at = excluded.expires_at`;
    },
    async find(id) {
      const [row] = await sql<{ payload: OAuthPayload; consumed_at: Date | null }[]>`
        select payload, consumed_at from oauth_models
        where kind = ${kind} and id_hash = ${oauthIdHash(id)} and (expires_at is null or expires_at > now())`;
      return read(row, id);
    },
    async findByUserCode() {
      // The device flow is not enabled (svc login --mcp uses authorize_cli instead).
      return undefined;
    },
    async findByUid(uid) {
      const [row] = await sql<{ payload: OAuthPayload; consumed_at: Date | null }[]>`
        select payload, consumed_at from oauth_models
        where kind = ${kind} and uid = ${uid} and (expires_at is null or expires_at > now())`;
      return read(row);
    },
    async consume(id) {
      await sql`
        update oauth_models set consumed_at = now()
        where kind = ${kind} and id_hash = ${oauthIdHash(id)} and consumed_at is null`;
    },
    async destroy(id) {
      await sql`delete from oauth_models where kind = ${kind} and id_hash = ${oauthIdHash(id)}`;
      forgetPrincipals(sql);
    },
    async revokeByGrantId(grantId) {
      await sql`delete from oauth_models where grant_id = ${grantId}`;
      forgetPrincipals(sql);
    },
  };
}
