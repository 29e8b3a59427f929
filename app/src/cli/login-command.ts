import { spawn } from "node:child_process";
import {
  DEFAULT_BASE_URL,
  forgetCredential,
  readStoredCredential,
  type StoredCredential,
  storeCredential,
} from "../client/credentials.ts";
import { browserLogin, mcpLogin, revokeCredential } from "../client/oauth-login.ts";
import type { CliIo } from "./cli-io.ts";

type Env = Readonly<Record<string, string | undefined>>;

/** What login needs from outside: a browser opener and a sleep (tests pass their own). */
export interface LoginDeps {
  openBrowser: (url: string) => Promise<boolean>;
  sleep: (ms: number) => Promise<void>;
}

/** Opens a URL with the desktop's opener (xdg-open, open, start); false when there is none. */
export function openSystemBrowser(url: string): Promise<boolean> {
  const command =
    process.platform === "darwin"
      ? ["open", url]
      : process.platform === "win32"
        ? ["cmd", "/c", "start", "", url]
        : ["xdg-open", url];
  return new Promise((resolve) => {
    try {
      const child = spawn(command[0]!, command.slice(1), { stdio: "ignore", detached: true });
      child.on("error", () => resolve(false));
      child.on("spawn", () => {
        child.unref();
        resolve(true);
      });
    } catch {
      resolve(false);
    }
  });
}

/**
 * `svc login` stores a credential for the service in the configuration directory (0600):
 * - no flag: the browser flow (authorization code + PKCE, loopback redirect; prints the URL);
 * - `--mcp`: a one-time code the user's connected agent approves with authorize_cli;
 * - `--token <token>`: a token an operator issued (`svc-server token issue`).
 */
export async function loginCommand(
  options: { token?: string; server?: string; mcp?: boolean },
  io: CliIo,
  env: Env = process.env,
  deps: LoginDeps = { openBrowser: openSystemBrowser, sleep: (ms) => new Promise((r) => setTimeout(r, ms)) },
): Promise<number> {
  const server = (options.server || env.SVC_BASE_URL || DEFAULT_BASE_URL).replace(/\/+$/, "");
  let credential: StoredCredential;
  if (options.token) {
    credential = { server, token: options.token, stored_at: new Date().toISOString(), kind: "token" };
  } else {
    const print = (text: string) => io.stderr(text);
    try {
      credential = options.mcp
        ? await mcpLogin(server, { print, sleep: deps.sleep })
        : await browserLogin(server, { print, openBrowser: deps.openBrowser });
    } catch (error) {
      io.stderr(`svc login: ${(error as Error).message}\n`);
      return 1;
    }
  }
  const path = await storeCredential(credential, env);
  io.stdout(`stored a credential for ${server} in ${path} (readable by you only)\n`);
  return 0;
}

/** `svc logout`: revokes the stored credential on its service (browser and --mcp logins), then forgets it. */
export async function logoutCommand(io: CliIo, env: Env = process.env): Promise<number> {
  const stored = await readStoredCredential(env);
  if (stored && stored.kind !== "token" && stored.kind !== undefined) {
    const revoked = await revokeCredential(stored).catch(() => false);
    io.stdout(
      revoked
        ? `revoked the credential on ${stored.server}\n`
        : `could not reach ${stored.server} to revoke the credential; it is forgotten here\n`,
    );
  }
  io.stdout((await forgetCredential(env)) ? "forgot the stored credential\n" : "no credential was stored\n");
  return 0;
}
