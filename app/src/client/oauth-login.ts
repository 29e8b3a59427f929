import { createHash, randomBytes } from "node:crypto";
import { createServer } from "node:http";
import type { StoredCredential } from "./credentials.ts";

/** How long `svc login` waits for the browser, and for an `authorize_cli` approval. */
export const LOGIN_WAIT_MS = 10 * 60 * 1000;

type Fetch = typeof globalThis.fetch;

/** What the browser flow needs from the outside: a browser, a printer, optionally a fetch. */
export interface BrowserLoginDeps {
  /** Tries to open `url` in a browser; false when none opened (an SSH session, say). */
  openBrowser(url: string): Promise<boolean>;
  /** Where instructions go (stderr). */
  print(text: string): void;
  fetch?: Fetch;
}

async function postForm(fetchImpl: Fetch, url: string, form: Record<string, string>) {
  const response = await fetchImpl(url, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
    body: new URLSearchParams(form).toString(),
  });
  const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  return { ok: response.ok, status: response.status, body };
}

async function postJson(fetchImpl: Fetch, url: string, json: unknown, headers: Record<string, string> = {}) {
  const response = await fetchImpl(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json", ...headers },
    body: JSON.stringify(json),
  });
  const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  return { ok: response.ok, status: response.status, body };
}

function oauthFailure(what: string, body: Record<string, unknown>, status: number): Error {
  const detail =
    typeof body.error === "string" ? `${body.error}: ${body.error_description ?? ""}` : `HTTP ${status}`;
  return new Error(`${what} failed (${detail})`);
}

/** The authorization server's endpoints (RFC 8414), from the service's metadata. */
async function discover(server: string, fetchImpl: Fetch) {
  const response = await fetchImpl(`${server}/.well-known/oauth-authorization-server`);
  if (!response.ok)
    throw new Error(`${server} has no OAuth metadata (HTTP ${response.status}): is it an svc service?`);
  return (await response.json()) as {
    authorization_endpoint: string;
    token_endpoint: string;
    registration_endpoint: string;
    revocation_endpoint: string;
  };
}

/** Turns a token response into the stored credential. */
function credentialFrom(
  server: string,
  body: Record<string, unknown>,
  client: { client_id: string; token_endpoint: string; revocation_endpoint: string },
): StoredCredential {
  return {
    server,
    token: body.access_token as string,
    stored_at: new Date().toISOString(),
    kind: "oauth",
    refresh_token: body.refresh_token as string,
    expires_at: new Date(Date.now() + Number(body.expires_in ?? 3600) * 1000).toISOString(),
    ...client,
  };
}

/**
 * `svc login`: the authorization code flow with PKCE (S256) for a native app (RFC 8252). The
 * command registers itself (RFC 7591) with a redirect to a one-shot HTTP listener on 127.0.0.1,
 * opens the authorization URL in a browser (and always prints it, for SSH sessions), waits for
 * the redirect, checks `state`, and exchanges the code for a token bound to `{server}/mcp` and a
 * refresh token.
 */
export async function browserLogin(server: string, deps: BrowserLoginDeps): Promise<StoredCredential> {
  const fetchImpl = deps.fetch ?? globalThis.fetch;
  const metadata = await discover(server, fetchImpl);
  const verifier = randomBytes(32).toString("base64url");
  const challenge = createHash("sha256").update(verifier).digest("base64url");
  const state = randomBytes(16).toString("base64url");

  let answer: (params: URLSearchParams) => void = () => {};
  const callback = new Promise<URLSearchParams>((resolve) => {
    answer = resolve;
  });
  const listener = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    if (url.pathname !== "/callback") {
      response.writeHead(404).end();
      return;
    }
    const failed = url.searchParams.has("error");
    response.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
    response.end(
      failed ? "svc login was refused; see your terminal.\n" : "svc login is done: you may close this tab.\n",
    );
    answer(url.searchParams);
  });
  await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
  const redirectUri = `http://127.0.0.1:${(listener.address() as { port: number }).port}/callback`;
  try {
    const registered = await postJson(fetchImpl, metadata.registration_endpoint, {
      client_name: "svc command line",
      application_type: "native",
      redirect_uris: [redirectUri],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    });
    if (!registered.ok)
      throw oauthFailure("registering the command line", registered.body, registered.status);
    const clientId = registered.body.client_id as string;
    const authorizationUrl = `${metadata.authorization_endpoint}?${new URLSearchParams({
      response_type: "code",
      client_id: clientId,
      redirect_uri: redirectUri,
      scope: "read contribute",
      resource: `${server}/mcp`,
      code_challenge: challenge,
      code_challenge_method: "S256",
      state,
    })}`;
    deps.print(
      `Sign in and approve svc in your browser. If no browser opens, open this URL:\n\n  ${authorizationUrl}\n\n`,
    );
    await deps.openBrowser(authorizationUrl).catch(() => false);
    let timer: NodeJS.Timeout | undefined;
    const params = await Promise.race([
      callback,
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error("no answer from the browser within 10 minutes")),
          LOGIN_WAIT_MS,
        );
      }),
    ]).finally(() => clearTimeout(timer));
    if (params.get("state") !== state)
      throw new Error("the browser's answer does not carry this login's state");
    if (params.has("error")) {
      throw new Error(
        `the sign-in was refused (${params.get("error")}: ${params.get("error_description") ?? ""})`,
      );
    }
    const token = await postForm(fetchImpl, metadata.token_endpoint, {
      grant_type: "authorization_code",
      code: params.get("code") ?? "",
      code_verifier: verifier,
      redirect_uri: redirectUri,
      client_id: clientId,
      resource: `${server}/mcp`,
    });
    if (!token.ok) throw oauthFailure("exchanging the code", token.body, token.status);
    return credentialFrom(server, token.body, {
      client_id: clientId,
      token_endpoint: metadata.token_endpoint,
      revocation_endpoint: metadata.revocation_endpoint,
    });
  } finally {
    listener.close();
    listener.closeAllConnections();
  }
}

/** What `svc login --mcp` needs from the outside. */
export interface McpLoginDeps {
  print(text: string): void;
  sleep(ms: number): Promise<void>;
  fetch?: Fetch;
}

/**
 * `svc login --mcp` (spec 5.6), shaped like the device flow (RFC 8628): the service gives a
 * one-time code and a poll secret; the command shows the code, the user asks their connected
 * agent to call `authorize_cli` with it, and the command polls until the token arrives (once),
 * the code expires, or 10 minutes pass.
 */
export async function mcpLogin(server: string, deps: McpLoginDeps): Promise<StoredCredential> {
  const fetchImpl = deps.fetch ?? globalThis.fetch;
  const started = await postJson(fetchImpl, `${server}/oauth/cli/start`, { client_name: "svc command line" });
  if (!started.ok) throw oauthFailure("starting the login", started.body, started.status);
  const { user_code, poll_token, interval, expires_in } = started.body as {
    user_code: string;
    poll_token: string;
    interval: number;
    expires_in: number;
  };
  deps.print(
    `Ask your connected agent to approve this login (it calls authorize_cli):\n\n  authorize_cli {"code": "${user_code}"}\n\nWaiting up to ${Math.round(expires_in / 60)} minutes...\n`,
  );
  const deadline = Date.now() + Math.min(expires_in * 1000, LOGIN_WAIT_MS);
  while (Date.now() < deadline) {
    const poll = await postJson(fetchImpl, `${server}/oauth/cli/token`, { poll_token });
    if (poll.ok) {
      return {
        server,
        token: poll.body.access_token as string,
        stored_at: new Date().toISOString(),
        kind: "mcp",
      };
    }
    if (poll.body.error !== "authorization_pending")
      throw oauthFailure("waiting for approval", poll.body, poll.status);
    await deps.sleep(interval * 1000);
  }
  throw new Error("the code was not approved in time: run svc login --mcp again");
}

/**
 * A fresh access token for a stored OAuth credential: refreshed (and rotated) when it expires
 * within a minute, else as stored. Null when it cannot be refreshed (revoked, say).
 */
export async function refreshCredential(
  stored: StoredCredential,
  fetchImpl: Fetch = globalThis.fetch,
  now: Date = new Date(),
): Promise<StoredCredential | null> {
  if (stored.kind !== "oauth" || !stored.expires_at || !stored.refresh_token) return stored;
  if (Date.parse(stored.expires_at) - now.getTime() > 60_000) return stored;
  const refreshed = await postForm(fetchImpl, stored.token_endpoint!, {
    grant_type: "refresh_token",
    refresh_token: stored.refresh_token,
    client_id: stored.client_id!,
  });
  if (!refreshed.ok) return null;
  return credentialFrom(stored.server, refreshed.body, {
    client_id: stored.client_id!,
    token_endpoint: stored.token_endpoint!,
    revocation_endpoint: stored.revocation_endpoint!,
  });
}

/** Revokes a stored credential on its service (`svc logout`); true when the service confirmed it. */
export async function revokeCredential(
  stored: StoredCredential,
  fetchImpl: Fetch = globalThis.fetch,
): Promise<boolean> {
  if (stored.kind === "oauth") {
    // Revoking the refresh token revokes the whole grant, access tokens included.
    const revoked = await postForm(fetchImpl, stored.revocation_endpoint!, {
      token: stored.refresh_token ?? stored.token,
      client_id: stored.client_id!,
    });
    return revoked.ok;
  }
  if (stored.kind === "mcp") {
    const revoked = await postJson(
      fetchImpl,
      `${stored.server}/oauth/cli/revoke`,
      {},
      { authorization: `Bearer ${stored.token}` },
    );
    return revoked.ok;
  }
  return false;
}
