import { DEFAULT_BASE_URL, forgetCredential, storeCredential } from "../client/credentials.ts";
import { type CliIo, UsageError } from "./cli-io.ts";

type Env = Readonly<Record<string, string | undefined>>;

/**
 * `svc login --token <token> [--server <url>]` stores a credential issued by an operator
 * (`svc-server token issue`). Browser sign-in and `--mcp` one-time codes need the service's
 * OAuth endpoints and `authorize_cli`, which are not built yet: they say so and exit 2.
 */
export async function loginCommand(
  options: { token?: string; server?: string; mcp?: boolean },
  io: CliIo,
  env: Env = process.env,
): Promise<number> {
  if (!options.token) {
    const how = options.mcp
      ? "svc login --mcp (a one-time code approved through authorize_cli)"
      : "browser sign-in";
    throw new UsageError(
      `${how} is not available in this version; ask an operator for a token (svc-server token issue) and run svc login --token <token>`,
    );
  }
  const server = (options.server || env.SVC_BASE_URL || DEFAULT_BASE_URL).replace(/\/+$/, "");
  const path = await storeCredential(
    { server, token: options.token, stored_at: new Date().toISOString() },
    env,
  );
  io.stdout(`stored a credential for ${server} in ${path} (readable by you only)\n`);
  return 0;
}

export async function logoutCommand(io: CliIo, env: Env = process.env): Promise<number> {
  io.stdout((await forgetCredential(env)) ? "forgot the stored credential\n" : "no credential was stored\n");
  return 0;
}
