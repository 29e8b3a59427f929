import { readFileSync } from "node:fs";

/** The App's configuration, read from the environment once at start. */
export interface AppConfig {
  appId: number;
  /** The App's private key (PEM), which signs the JWTs that obtain installation tokens. */
  privateKey: string;
  /** The webhook secret: every delivery's `X-Hub-Signature-256` is checked against it. */
  webhookSecret: string;
  /** The GitHub REST API base URL: `https://api.github.com`, or a GitHub Enterprise Server's `/api/v3`. */
  githubApiUrl: string;
  /** The svc service's base URL; null for lint-only checks. */
  serviceUrl: string | null;
  /** The service credential for installations without their own. */
  serviceToken: string | null;
  /** Service credentials per installation id, over `serviceToken`. */
  serviceTokens: Readonly<Record<string, string>>;
  /**
   * `DATABASE_URL`: the PostgreSQL the App's replicas share (its delivery ledger and commit locks,
   * in schema `svc_github_app`); null: one replica, in memory.
   */
  databaseUrl: string | null;
  /** Where the webhook endpoint listens. */
  host: string;
  port: number;
  webhookPath: string;
}

type Env = Readonly<Record<string, string | undefined>>;

/** Thrown for a configuration the App cannot start with; the message says what to set. */
export class ConfigError extends Error {
  override name = "ConfigError";
}

/**
 * Reads the configuration (docs/github-app.md): `APP_ID`, `PRIVATE_KEY` (or `PRIVATE_KEY_PATH`),
 * `WEBHOOK_SECRET`, `GITHUB_API_URL` (else `GHE_HOST` as `https://<host>/api/v3`, else
 * api.github.com), `SVC_BASE_URL`, `SVC_TOKEN`, `SVC_TOKENS` (a JSON object of installation id to
 * token), `DATABASE_URL`, `HOST`, `PORT`, `WEBHOOK_PATH`.
 */
export function readAppConfig(env: Env = process.env): AppConfig {
  const missing = ["APP_ID", "WEBHOOK_SECRET"].filter((name) => !env[name]);
  if (!env.PRIVATE_KEY && !env.PRIVATE_KEY_PATH) missing.push("PRIVATE_KEY or PRIVATE_KEY_PATH");
  if (missing.length > 0) throw new ConfigError(`set ${missing.join(", ")} (see docs/github-app.md)`);
  const appId = Number(env.APP_ID);
  if (!Number.isInteger(appId) || appId <= 0)
    throw new ConfigError(`APP_ID must be the App's numeric id, not "${env.APP_ID}"`);
  // Keys pasted into one-line variables often carry literal "\n".
  const privateKey = (env.PRIVATE_KEY ?? readFileSync(env.PRIVATE_KEY_PATH!, "utf8")).replaceAll("\\n", "\n");
  let serviceTokens: Record<string, string> = {};
  if (env.SVC_TOKENS) {
    try {
      serviceTokens = JSON.parse(env.SVC_TOKENS) as Record<string, string>;
    } catch {
      throw new ConfigError('SVC_TOKENS must be a JSON object such as {"12345": "svc_..."}');
    }
    if (
      !serviceTokens ||
      typeof serviceTokens !== "object" ||
      Object.values(serviceTokens).some((t) => typeof t !== "string")
    ) {
      throw new ConfigError('SVC_TOKENS must map installation ids to token strings: {"12345": "svc_..."}');
    }
  }
  const githubApiUrl =
    env.GITHUB_API_URL ||
    (env.GHE_HOST ? `${env.GHE_PROTOCOL || "https"}://${env.GHE_HOST}/api/v3` : "https://api.github.com");
  const port = Number(env.PORT ?? 3000);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new ConfigError(`PORT must be a port number, not "${env.PORT}"`);
  return {
    appId,
    privateKey,
    webhookSecret: env.WEBHOOK_SECRET!,
    githubApiUrl: githubApiUrl.replace(/\/+$/, ""),
    serviceUrl: env.SVC_BASE_URL ? env.SVC_BASE_URL.replace(/\/+$/, "") : null,
    serviceToken: env.SVC_TOKEN || null,
    serviceTokens,
    databaseUrl: env.DATABASE_URL || null,
    host: env.HOST || "0.0.0.0",
    port,
    webhookPath: env.WEBHOOK_PATH || "/api/github/webhooks",
  };
}

/** The service credential for an installation: its own from SVC_TOKENS, else SVC_TOKEN. */
export function serviceTokenFor(config: AppConfig, installationId: number | undefined): string | null {
  return (
    (installationId !== undefined ? config.serviceTokens[String(installationId)] : undefined) ??
    config.serviceToken
  );
}
