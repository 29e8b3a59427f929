import { createHash, randomBytes } from "node:crypto";

/** A PKCE verifier and its S256 challenge (RFC 7636). */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

/** A minimal browser for the authorization endpoint: keeps cookies, follows redirects by hand. */
export class CookieBrowser {
  readonly cookies = new Map<string, string>();

  async request(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size > 0) {
      headers.set("cookie", [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; "));
    }
    const response = await fetch(url, { ...init, headers, redirect: "manual" });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const at = pair!.indexOf("=");
      this.cookies.set(pair!.slice(0, at).trim(), pair!.slice(at + 1));
    }
    return response;
  }
}

/**
 * Runs an authorization request through consent as the user whose operator token is `bearer`
 * (the consent page accepts the bearer as well as a session), approving unless `decision` says
 * otherwise, and returns the URL the browser is finally sent to: the client's redirect URI with
 * `code` or `error`.
 */
export async function authorize(
  authorizationUrl: string,
  bearer: string,
  decision: "approve" | "deny" = "approve",
  browser = new CookieBrowser(),
): Promise<URL> {
  const authHeader = { authorization: `Bearer ${bearer}` };
  let url = authorizationUrl;
  let consented = false;
  for (let hop = 0; hop < 10; hop++) {
    const response = await browser.request(url, { headers: authHeader });
    await response.arrayBuffer();
    const location = response.headers.get("location");
    if (response.status === 200 && !consented && new URL(url).pathname.startsWith("/oauth/interaction/")) {
      consented = true;
      const posted = await browser.request(url, {
        method: "POST",
        headers: { ...authHeader, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ decision }).toString(),
      });
      await posted.arrayBuffer();
      const next = posted.headers.get("location");
      if (!next) throw new Error(`consent answered ${posted.status} without a redirect`);
      url = new URL(next, url).href;
      continue;
    }
    if (!location) throw new Error(`${url} answered ${response.status} without a redirect`);
    const target = new URL(location, url);
    if (target.origin !== new URL(authorizationUrl).origin) return target;
    url = target.href;
  }
  throw new Error("too many redirects");
}

/** Registers a public client by Dynamic Client Registration (RFC 7591). */
export async function registerClient(
  appUrl: string,
  redirectUri: string,
): Promise<{ client_id: string } & Record<string, unknown>> {
  const response = await fetch(`${appUrl}/oauth/reg`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      client_name: "test client",
      redirect_uris: [redirectUri],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    }),
  });
  if (response.status !== 201)
    throw new Error(`registration answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as { client_id: string };
}

/** POSTs a form to the token endpoint (or revocation), returning status and JSON body. */
export async function tokenRequest(
  url: string,
  form: Record<string, string>,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(form).toString(),
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}
