import { chmod, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { refreshCredential } from "./oauth-login.ts";

/**
 * Where the `svc` command line finds the service and its credential (decisions.md): the server
 * from `--server`, else `SVC_BASE_URL`, else the one stored by `svc login`, else the default
 * local address; the token from `SVC_TOKEN`, else the one `svc login` stored. The stored file
 * lives in the user's configuration directory with mode 0600, since it is a bearer secret.
 */
export const DEFAULT_BASE_URL = "http://127.0.0.1:8787";

export interface StoredCredential {
  server: string;
  /** The bearer: an operator's `svc_` token, or an OAuth access token. */
  token: string;
  stored_at: string;
  /**
   * How it was obtained: `token` (`--token`, or absent in files from earlier versions), `oauth`
   * (the browser flow: refreshed transparently), `mcp` (`--mcp`, approved by authorize_cli).
   */
  kind?: "token" | "oauth" | "mcp";
  refresh_token?: string;
  expires_at?: string;
  client_id?: string;
  token_endpoint?: string;
  revocation_endpoint?: string;
}

type Env = Readonly<Record<string, string | undefined>>;

/** `$XDG_CONFIG_HOME/svc/credentials.json`, else `~/.config/svc/credentials.json`. */
export function credentialsPath(env: Env = process.env): string {
  const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), ".config");
  return join(base, "svc", "credentials.json");
}

export async function readStoredCredential(env: Env = process.env): Promise<StoredCredential | null> {
  try {
    const value = JSON.parse(await readFile(credentialsPath(env), "utf8")) as Partial<StoredCredential>;
    return typeof value.token === "string" && typeof value.server === "string"
      ? (value as StoredCredential)
      : null;
  } catch {
    return null;
  }
}

/** Stores a credential readable by its owner only (0600), replacing any earlier one. */
export async function storeCredential(credential: StoredCredential, env: Env = process.env): Promise<string> {
  const path = credentialsPath(env);
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await writeFile(path, `${JSON.stringify(credential, null, 2)}\n`, { mode: 0o600 });
  await chmod(path, 0o600); // writeFile's mode applies only when it creates the file
  return path;
}

/** Forgets the stored credential; true when there was one. */
export async function forgetCredential(env: Env = process.env): Promise<boolean> {
  const stored = await readStoredCredential(env);
  await rm(credentialsPath(env), { force: true });
  return stored !== null;
}

/** The server and token a command uses, and where each came from. */
export async function resolveCredential(
  flags: { server?: string },
  env: Env = process.env,
): Promise<{ server: string; token: string | null; source: "env" | "stored" | "none" }> {
  let stored = await readStoredCredential(env);
  const server = (flags.server || env.SVC_BASE_URL || stored?.server || DEFAULT_BASE_URL).replace(/\/+$/, "");
  if (env.SVC_TOKEN) return { server, token: env.SVC_TOKEN, source: "env" };
  if (stored?.kind === "oauth") {
    // The browser flow's access token lasts an hour: refresh it (rotating the refresh token).
    const fresh = await refreshCredential(stored).catch(() => stored);
    if (fresh && fresh !== stored) await storeCredential(fresh, env);
    stored = fresh ?? stored;
  }
  if (stored) return { server, token: stored.token, source: "stored" };
  return { server, token: null, source: "none" };
}
