import type { AddressInfo } from "node:net";
import { createServer } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { listOAuthGrants, revokeOAuthGrant } from "../../../../src/oauth/oauth-grants.ts";
import { issueSignInLink } from "../../../../src/sessions/sign-in-links.ts";
import { addUser, grantCapability, issueToken } from "../../../../src/users/index.ts";
import { describeWithDatabase, useTestDatabase } from "../../../support/test-database.ts";
import { testServices } from "../../../support/test-services.ts";
import { modernRpc } from "../../mcp/support/json-rpc.ts";
import { type RunningApp, startApp } from "../../mcp/support/start-app.ts";
import { authorize, CookieBrowser, pkcePair, registerClient, tokenRequest } from "./support/oauth-driver.ts";

const REDIRECT = "http://127.0.0.1:9/callback";

describeWithDatabase("the OAuth authorization server", () => {
  const db = useTestDatabase();
  let app: RunningApp;
  let adaBearer: string;
  let bobBearer: string;
  let adaId: string;
  let bobId: string;
  let clientId: string;

  beforeAll(async () => {
    const ada = await addUser(db.sql, { handle: "ada" });
    adaId = ada.id;
    await grantCapability(db.sql, { userId: ada.id, capability: "author" });
    bobId = (await addUser(db.sql, { handle: "bob" })).id;
    ({ token: adaBearer } = await issueToken(db.sql, "ada", ["read"]));
    ({ token: bobBearer } = await issueToken(db.sql, "bob", ["read"]));
    app = await startApp(testServices(db.sql));
    ({ client_id: clientId } = await registerClient(app.url, REDIRECT));
  });
  afterAll(() => app?.close());

  const authorizationUrl = (challenge: string, extra: Record<string, string> = {}) =>
    `${app.url}/oauth/auth?${new URLSearchParams({
      client_id: clientId,
      response_type: "code",
      redirect_uri: REDIRECT,
      scope: "read contribute",
      code_challenge: challenge,
      code_challenge_method: "S256",
      resource: `${app.url}/mcp`,
      state: "s1",
      ...extra,
    })}`;

  const codeFor = async (bearer: string, extra: Record<string, string> = {}) => {
    const pkce = pkcePair();
    const back = await authorize(authorizationUrl(pkce.challenge, extra), bearer);
    expect(back.searchParams.get("error")).toBeNull();
    return { code: back.searchParams.get("code")!, verifier: pkce.verifier };
  };

  const exchange = (code: string, verifier: string) =>
    tokenRequest(`${app.url}/oauth/token`, {
      grant_type: "authorization_code",
      code,
      code_verifier: verifier,
      redirect_uri: REDIRECT,
      client_id: clientId,
      resource: `${app.url}/mcp`,
    });

  it("serves RFC 8414 metadata that the protected resource metadata names", async () => {
    const prm = (await (await fetch(`${app.url}/.well-known/oauth-protected-resource/mcp`)).json()) as {
      authorization_servers: string[];
    };
    expect(prm.authorization_servers).toEqual([app.url]);
    const response = await fetch(`${app.url}/.well-known/oauth-authorization-server`);
    expect(response.status).toBe(200);
    const metadata = (await response.json()) as Record<string, unknown>;
    expect(metadata).toMatchObject({
      issuer: app.url,
      authorization_endpoint: `${app.url}/oauth/auth`,
      token_endpoint: `${app.url}/oauth/token`,
      registration_endpoint: `${app.url}/oauth/reg`,
      revocation_endpoint: `${app.url}/oauth/token/revocation`,
      code_challenge_methods_supported: ["S256"],
      client_id_metadata_document_supported: true,
    });
  });

  it("issues a token bound to /mcp carrying read/contribute and the user's capabilities", async () => {
    const { code, verifier } = await codeFor(adaBearer);
    const { status, body } = await exchange(code, verifier);
    expect(status).toBe(200);
    expect(body).toMatchObject({ token_type: "Bearer", scope: "read contribute" });
    expect(body.refresh_token).toEqual(expect.any(String));
    const whoami = await modernRpc(app.url, body.access_token as string, "tools/call", {
      name: "whoami",
      arguments: {},
    });
    expect(whoami.status).toBe(200);
    expect(JSON.stringify(whoami.body)).toContain('\\"capabilities\\":[\\"author\\"]');
    const stored = await db.sql<{ n: number }[]>`
      select count(*)::int as n from oauth_models where payload::text like ${`%${body.access_token as string}%`}`;
    expect(stored[0]!.n).toBe(0);
  });

  it("refuses a wrong PKCE verifier with invalid_grant", async () => {
    const { code } = await codeFor(adaBearer);
    const { status, body } = await exchange(code, pkcePair().verifier);
    expect(status).toBe(400);
    expect(body.error).toBe("invalid_grant");
  });

  it("refuses a code used twice with invalid_grant", async () => {
    const { code, verifier } = await codeFor(adaBearer);
    expect((await exchange(code, verifier)).status).toBe(200);
    const again = await exchange(code, verifier);
    expect(again.status).toBe(400);
    expect(again.body.error).toBe("invalid_grant");
  });

  it("refuses an expired code with invalid_grant", async () => {
    const { code, verifier } = await codeFor(adaBearer);
    await db.sql`update oauth_models set expires_at = now() - interval '1 second' where kind = 'AuthorizationCode'`;
    const { status, body } = await exchange(code, verifier);
    expect(status).toBe(400);
    expect(body.error).toBe("invalid_grant");
  });

  it("refuses a redirect URI that is not registered, without redirecting to it", async () => {
    const pkce = pkcePair();
    const response = await fetch(
      authorizationUrl(pkce.challenge, { redirect_uri: "http://127.0.0.1:9/evil" }),
      {
        redirect: "manual",
      },
    );
    expect(response.status).toBe(400);
    expect(await response.text()).toContain("invalid_redirect_uri");
  });

  it("refuses an unknown client", async () => {
    const pkce = pkcePair();
    const response = await fetch(authorizationUrl(pkce.challenge, { client_id: "no-such-client" }), {
      redirect: "manual",
    });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain("invalid_client");
  });

  it("refuses a scope beyond the user's capabilities with invalid_scope", async () => {
    const pkce = pkcePair();
    const back = await authorize(authorizationUrl(pkce.challenge, { scope: "read author" }), bobBearer);
    expect(back.searchParams.get("error")).toBe("invalid_scope");
    expect(back.searchParams.get("code")).toBeNull();
  });

  it("refuses a PKCE-less request and a plain challenge", async () => {
    const url = new URL(authorizationUrl("x"));
    url.searchParams.delete("code_challenge");
    url.searchParams.delete("code_challenge_method");
    const response = await fetch(url, { redirect: "manual" });
    expect(new URL(response.headers.get("location")!).searchParams.get("error")).toBe("invalid_request");
    url.searchParams.set("code_challenge", pkcePair().verifier);
    url.searchParams.set("code_challenge_method", "plain");
    const plain = await fetch(url, { redirect: "manual" });
    expect(new URL(plain.headers.get("location")!).searchParams.get("error")).toBe("invalid_request");
  });

  it("rotates refresh tokens and revokes the grant when a rotated one is reused", async () => {
    const { code, verifier } = await codeFor(adaBearer);
    const first = await exchange(code, verifier);
    const refresh = (token: string) =>
      tokenRequest(`${app.url}/oauth/token`, {
        grant_type: "refresh_token",
        refresh_token: token,
        client_id: clientId,
      });
    const second = await refresh(first.body.refresh_token as string);
    expect(second.status).toBe(200);
    expect(second.body.refresh_token).not.toBe(first.body.refresh_token);
    const fresh = second.body.access_token as string;
    expect((await modernRpc(app.url, fresh, "tools/list")).status).toBe(200);
    const reused = await refresh(first.body.refresh_token as string);
    expect(reused.status).toBe(400);
    expect(reused.body.error).toBe("invalid_grant");
    // The whole grant is gone: the newest access and refresh tokens no longer work.
    expect((await modernRpc(app.url, fresh, "tools/list")).status).toBe(401);
    expect((await refresh(second.body.refresh_token as string)).body.error).toBe("invalid_grant");
  });

  it("revokes an access token (RFC 7009), which /mcp then refuses", async () => {
    const { code, verifier } = await codeFor(adaBearer);
    const { body } = await exchange(code, verifier);
    const token = body.access_token as string;
    expect((await modernRpc(app.url, token, "tools/list")).status).toBe(200);
    const revoked = await tokenRequest(`${app.url}/oauth/token/revocation`, { token, client_id: clientId });
    expect(revoked.status).toBe(200);
    expect((await modernRpc(app.url, token, "tools/list")).status).toBe(401);
  });

  it("refuses at /mcp a token minted for another resource, which /api accepts", async () => {
    const { code, verifier } = await codeFor(adaBearer, { resource: `${app.url}/api` });
    const { status, body } = await tokenRequest(`${app.url}/oauth/token`, {
      grant_type: "authorization_code",
      code,
      code_verifier: verifier,
      redirect_uri: REDIRECT,
      client_id: clientId,
      resource: `${app.url}/api`,
    });
    expect(status).toBe(200);
    const token = body.access_token as string;
    expect((await modernRpc(app.url, token, "tools/list")).status).toBe(401);
    const api = await fetch(`${app.url}/api/problems`, { headers: { authorization: `Bearer ${token}` } });
    expect(api.status).toBe(200);
  });

  it("refuses a resource that is not the service's with invalid_target", async () => {
    const pkce = pkcePair();
    const response = await fetch(
      authorizationUrl(pkce.challenge, { resource: "https://elsewhere.example/mcp" }),
      {
        redirect: "manual",
      },
    );
    expect(new URL(response.headers.get("location")!).searchParams.get("error")).toBe("invalid_target");
  });

  it("shows on the consent page the client, each scope and, with author, that publications are immutable", async () => {
    for (const [bearer, author] of [
      [adaBearer, true],
      [bobBearer, false],
    ] as const) {
      const browser = new CookieBrowser();
      const started = await browser.request(authorizationUrl(pkcePair().challenge));
      const page = await browser.request(new URL(started.headers.get("location")!, app.url).href, {
        headers: { authorization: `Bearer ${bearer}` },
      });
      expect(page.status).toBe(200);
      expect(page.headers.get("content-security-policy")).toContain("form-action 'self' http://127.0.0.1:9");
      const text = await page.text();
      expect(text).toContain("test client");
      expect(text).toContain(`<code>read</code>`);
      expect(text).toContain(`<code>contribute</code>`);
      expect(text.includes("Publications are immutable")).toBe(author);
      expect(text.includes("<code>author</code>")).toBe(author);
    }
  });

  it("sends a browser that is not signed in to sign-in and back; a program asking for JSON gets 401", async () => {
    const browser = new CookieBrowser();
    const started = await browser.request(authorizationUrl(pkcePair().challenge));
    for (const cookie of started.headers.getSetCookie()) {
      expect(cookie.toLowerCase()).toContain("httponly");
      expect(cookie.toLowerCase()).toContain("samesite=lax");
    }
    const interaction = new URL(started.headers.get("location")!, app.url);
    const page = await browser.request(interaction.href);
    expect(page.status).toBe(303);
    expect(page.headers.get("location")).toBe(
      `/sign-in?return_to=${encodeURIComponent(interaction.pathname)}`,
    );
    const json = await browser.request(interaction.href, { headers: { accept: "application/json" } });
    expect(json.status).toBe(401);
  });

  it("signs a browser in with a one-time link, then consent needs the session's CSRF token", async () => {
    const browser = new CookieBrowser();
    const started = await browser.request(authorizationUrl(pkcePair().challenge));
    const interaction = new URL(started.headers.get("location")!, app.url);
    const link = await issueSignInLink(
      { sql: db.sql, clock: () => new Date() },
      { handle: "ada", baseUrl: app.url, returnTo: interaction.pathname },
    );
    // The link shows a confirm page (a link scanner fetching it signs nobody in); the POST signs in.
    const confirm = await browser.request(link.url);
    expect(confirm.status).toBe(200);
    const form = await confirm.text();
    const csrf = /name="_csrf" value="([^"]+)"/.exec(form)![1]!;
    const withoutCsrf = await browser.request(`${app.url}/sign-in/link`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: link.token }).toString(),
    });
    expect(withoutCsrf.status).toBe(403);
    const signedIn = await browser.request(`${app.url}/sign-in/link`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: link.token, _csrf: csrf }).toString(),
    });
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get("location")).toBe(interaction.pathname);
    // The session id was rotated at sign-in: the pre-sign-in secret is not the session's.
    const session = browser.cookies.get("svc_session");
    expect(session).toBeDefined();
    // The CSRF token rotated with the session; and a link works once.
    const stale = await browser.request(`${app.url}/sign-in/link`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: link.token, _csrf: csrf }).toString(),
    });
    expect(stale.status).toBe(403);
    const fresh = csrfOf(await (await browser.request(link.url)).text());
    const again = await browser.request(`${app.url}/sign-in/link`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body: new URLSearchParams({ token: link.token, _csrf: fresh }).toString(),
    });
    expect(again.status).toBe(400);
    expect(((await again.json()) as { error: { code: string } }).error.code).toBe("sign_in_link_invalid");
    // Consent: the page carries the session's CSRF token; a POST without it is refused.
    const consent = await browser.request(interaction.href);
    expect(consent.status).toBe(200);
    const consentToken = /name="csrf_token" value="([^"]+)"/.exec(await consent.text())![1]!;
    const forged = await browser.request(interaction.href, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ decision: "approve" }).toString(),
    });
    expect(forged.status).toBe(403);
    const approved = await browser.request(interaction.href, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ decision: "approve", csrf_token: consentToken }).toString(),
    });
    expect(approved.status).toBe(303);
    // Signed in, /sign-in goes straight on; sign out everywhere ends the session for good.
    expect((await browser.request(`${app.url}/sign-in`)).status).toBe(303);
    const settingsCsrf = csrfOf(
      await (await browser.request(`${app.url}/sign-in/link/${"svl_" + "0".repeat(43)}`)).text(),
    );
    const out = await browser.request(`${app.url}/sign-out/everywhere`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ _csrf: settingsCsrf }).toString(),
    });
    expect(out.status).toBe(303);
    // The old cookie, sent again, signs nobody in: the session was revoked on the server.
    browser.cookies.set("svc_session", session!);
    const after = await browser.request(`${app.url}/sign-in`);
    expect(after.status).toBe(200);
  });

  it("refuses a client ID metadata document on a special-use address before connecting: no connection is opened", async () => {
    // A listener on loopback counts the connections it accepts: refusing after connecting (the
    // library's own check) would count one per attempt, and time how long a port takes to answer.
    let accepted = 0;
    const listener = createServer((socket) => {
      accepted += 1;
      socket.destroy();
    });
    await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
    const { port } = listener.address() as AddressInfo;
    try {
      for (const clientIdUrl of [
        `https://127.0.0.1:${port}/client.json`,
        `https://localhost:${port}/client.json`,
        `https://localhost.:${port}/client.json`,
        `https://[::ffff:127.0.0.1]:${port}/client.json`,
        `https://127.1:${port}/client.json`,
        "https://10.0.0.1/client.json",
        "https://169.254.169.254/client.json",
        "http://example.com/c.json",
      ]) {
        const response = await fetch(authorizationUrl(pkcePair().challenge, { client_id: clientIdUrl }), {
          redirect: "manual",
        });
        expect(response.status, clientIdUrl).toBe(400);
        expect(await response.text()).toContain("invalid_client");
      }
      expect(accepted).toBe(0);
    } finally {
      listener.close();
    }
  });

  it("registers plain-http redirect URIs on loopback only (OAuth 2.1), https anywhere", async () => {
    const register = (redirectUri: string) =>
      fetch(`${app.url}/oauth/reg`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          redirect_uris: [redirectUri],
          grant_types: ["authorization_code"],
          response_types: ["code"],
          token_endpoint_auth_method: "none",
        }),
      });
    for (const remote of ["http://example.com/cb", "http://10.0.0.1/cb", "http://localhost.example.com/cb"]) {
      const refused = await register(remote);
      expect(refused.status, remote).toBe(400);
      expect(await refused.json()).toMatchObject({
        error: "invalid_redirect_uri",
        error_description: expect.stringContaining("not loopback"),
      });
    }
    for (const allowed of [
      "http://127.0.0.1:7/cb",
      "http://[::1]:7/cb",
      "http://localhost:7/cb",
      "https://example.com/cb",
    ]) {
      expect((await register(allowed)).status, allowed).toBe(201);
    }
  });

  it("lists the user's grants with their client and last use, and revokes one with all its tokens", async () => {
    const { code, verifier } = await codeFor(adaBearer);
    const token = (await exchange(code, verifier)).body.access_token as string;
    expect((await modernRpc(app.url, token, "tools/list")).status).toBe(200);
    const grants = await listOAuthGrants(db.sql, adaId);
    expect(grants.length).toBeGreaterThan(0);
    const newest = grants[0]!;
    expect(newest).toMatchObject({
      client_id: clientId,
      client_name: "test client",
      resources: { [`${app.url}/mcp`]: "read contribute author" },
      last_used_at: expect.any(Date),
    });
    expect(await listOAuthGrants(db.sql, bobId)).not.toContainEqual(
      expect.objectContaining({ grant_id: newest.grant_id }),
    );
    expect(await revokeOAuthGrant(db.sql, bobId, newest.grant_id)).toBe(false);
    expect((await modernRpc(app.url, token, "tools/list")).status).toBe(200);
    expect(await revokeOAuthGrant(db.sql, adaId, newest.grant_id)).toBe(true);
    expect((await modernRpc(app.url, token, "tools/list")).status).toBe(401);
    expect((await listOAuthGrants(db.sql, adaId)).map((g) => g.grant_id)).not.toContain(newest.grant_id);
  });

  it("asks for consent again on every authorization, even in a browser that approved before", async () => {
    const browser = new CookieBrowser();
    const first = await authorize(authorizationUrl(pkcePair().challenge), adaBearer, "approve", browser);
    expect(first.searchParams.get("code")).toEqual(expect.any(String));
    const again = await browser.request(authorizationUrl(pkcePair().challenge));
    expect(new URL(again.headers.get("location")!, app.url).pathname).toMatch(/^\/oauth\/interaction\//);
  });

  it("sends access_denied back to the client when the user denies", async () => {
    const back = await authorize(authorizationUrl(pkcePair().challenge), adaBearer, "deny");
    expect(back.searchParams.get("error")).toBe("access_denied");
    expect(back.searchParams.get("code")).toBeNull();
  });
});

/** The CSRF token a rendered form carries. */
function csrfOf(page: string): string {
  return /name="_csrf" value="([^"]+)"/.exec(page)![1]!;
}
