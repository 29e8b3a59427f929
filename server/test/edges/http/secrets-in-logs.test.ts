import { SignupMode } from "@svc/schemas";
import pino from "pino";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { launchBrowser } from "../../../../test/support/browser.ts";
import { type FakeGitHubOAuth, startFakeGitHubOAuth } from "../../../../test/support/fake-github-oauth.ts";
import { authorizeCli, pollCliLogin, startCliLogin } from "../../../src/oauth/cli-login.ts";
import { issueSignInLink } from "../../../src/sessions/sign-in-links.ts";
import { authenticate } from "../../../src/users/authenticate.ts";
import { addUser, grantCapability, issueToken } from "../../../src/users/index.ts";
import { describeWithBrowser } from "../../support/describe-with-browser.ts";
import { useTestDatabase } from "../../support/test-database.ts";
import { TEST_SIGNING_SECRET, testServices } from "../../support/test-services.ts";
import { type RunningApp, startApp } from "../mcp/support/start-app.ts";
import { lines, REDIRECT, TestAuthProvider } from "./oauth/support/sdk-oauth-clients.ts";

/**
 * Secrets never reach the log. The service runs with its log at `trace` into memory while a
 * person signs in with GitHub and with a one-time link, opens the settings page and revokes a
 * token, an MCP client goes through OAuth consent and uses its tokens, and a command line logs in
 * with `svc login --mcp`; then every secret any of them saw (cookies, link tokens, CSRF tokens,
 * GitHub's state, code and access token, the client secret, OAuth codes, access and refresh
 * tokens, operator tokens, the signing secret) is looked for in every log line.
 */

describeWithBrowser("secrets in the log", () => {
  const db = useTestDatabase();
  const logLines: string[] = [];
  const secrets = new Set<string>();
  let github: FakeGitHubOAuth;
  let browser: Browser;
  let app: RunningApp;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    github = await startFakeGitHubOAuth();
    browser = await launchBrowser();
    const log = pino({ level: "trace" }, { write: (line: string) => logLines.push(line) });
    app = await startApp({
      ...testServices(db.sql),
      log,
      githubSignIn: {
        clientId: github.clientId,
        clientSecret: github.clientSecret,
        webUrl: github.url,
        apiUrl: github.url,
        signup: SignupMode.open,
      },
    });
  });
  afterAll(async () => {
    for (const context of contexts) await context.close();
    await app?.close();
    await browser?.close();
    await github?.close();
  });

  /** Records what a page holds that is secret: its cookies and its forms' CSRF tokens. */
  const collect = async (context: BrowserContext, page: Page) => {
    for (const cookie of await context.cookies()) secrets.add(cookie.value);
    for (const value of await page
      .locator('input[name="_csrf"], input[name="csrf_token"]')
      .evaluateAll((inputs) => inputs.map((input) => (input as unknown as { value: string }).value))) {
      secrets.add(value);
    }
  };
  const newPage = async () => {
    const context = await browser.newContext();
    contexts.push(context);
    const page = await context.newPage();
    // Every address the browser requests may carry a state or a code: keep their parameters.
    page.on("request", (request) => {
      for (const [name, value] of new URL(request.url()).searchParams) {
        if (["state", "code", "code_verifier"].includes(name)) secrets.add(value);
      }
    });
    return { context, page };
  };

  it("holds none of the secrets of a full round of sign-ins, consent and tokens", async () => {
    // Sign in with GitHub, then the settings page.
    github.signInAs({ id: 31337, login: "ada" });
    const viaGitHub = await newPage();
    await viaGitHub.page.goto(`${app.url}/sign-in`);
    await collect(viaGitHub.context, viaGitHub.page);
    await viaGitHub.page.getByTestId("sign-in-with-github").click();
    await viaGitHub.page.waitForURL((url) => url.pathname === "/settings");
    await collect(viaGitHub.context, viaGitHub.page);

    // An operator token, used, then revoked from the settings page.
    const operator = await issueToken(db.sql, "ada", ["read", "contribute"]);
    secrets.add(operator.token);
    expect(
      (await fetch(`${app.url}/api/whoami`, { headers: { authorization: `Bearer ${operator.token}` } }))
        .status,
    ).toBe(200);
    await viaGitHub.page.reload();
    await collect(viaGitHub.context, viaGitHub.page);
    await viaGitHub.page.getByTestId("operator-tokens").getByTestId("revoke").click();
    await viaGitHub.page.waitForURL((url) => url.searchParams.get("done") === "token");
    expect(
      (await fetch(`${app.url}/api/whoami`, { headers: { authorization: `Bearer ${operator.token}` } }))
        .status,
    ).toBe(401);

    // A one-time sign-in link.
    const bob = await addUser(db.sql, { handle: "bob" });
    await grantCapability(db.sql, { userId: bob.id, capability: "author" });
    const link = await issueSignInLink(
      { sql: db.sql, clock: () => new Date() },
      { handle: "bob", baseUrl: app.url },
    );
    secrets.add(link.token);
    const viaLink = await newPage();
    await viaLink.page.goto(link.url);
    await collect(viaLink.context, viaLink.page);
    await viaLink.page.getByTestId("confirm-sign-in").click();
    await viaLink.page.waitForURL((url) => url.pathname === "/settings");
    await collect(viaLink.context, viaLink.page);

    // An MCP client's OAuth flow, consent in bob's signed-in browser, then a call with its token.
    const provider = new TestAuthProvider(async (authorizationUrl) => {
      await viaLink.page.goto(authorizationUrl);
      await collect(viaLink.context, viaLink.page);
      let landed: URL | undefined;
      await viaLink.page.route(`${new URL(REDIRECT).origin}/**`, async (route) => {
        landed = new URL(route.request().url());
        await route.fulfill({ status: 200, contentType: "text/plain", body: "back at the client" });
      });
      await viaLink.page.getByTestId("approve").click();
      await viaLink.page.waitForURL((url) => url.origin === new URL(REDIRECT).origin);
      return landed!;
    });
    const session = await lines[0]!.connect(app.url, provider);
    expect(await session.whoami()).toMatchObject({ user: { handle: "bob" } });
    const tokens = provider.tokens() as unknown as { access_token: string; refresh_token?: string };
    secrets.add(tokens.access_token);
    if (tokens.refresh_token) secrets.add(tokens.refresh_token);
    secrets.add(provider.codeVerifier());

    // `svc login --mcp`: the code, the poll secret and the token it hands out.
    const cli = await startCliLogin(db.sql, { client_name: "svc command line" });
    secrets.add(cli.poll_token);
    const bobPrincipal = (await authenticate(db.sql, tokens.access_token))!;
    await authorizeCli(db.sql, { principal: bobPrincipal, baseUrl: app.url }, { code: cli.user_code });
    const polled = await pollCliLogin(db.sql, cli.poll_token);
    if (polled.status === "approved") secrets.add(polled.token);

    // Sign out everywhere, with the CSRF token of the page.
    await viaLink.page.goto(`${app.url}/settings`);
    await collect(viaLink.context, viaLink.page);
    await viaLink.page.getByTestId("sign-out-everywhere").click();
    await viaLink.page.waitForURL((url) => url.pathname === "/sign-in");

    for (const secret of github.secrets) secrets.add(secret);
    secrets.add(TEST_SIGNING_SECRET);

    // The log did record the flow (else this test could not fail)...
    const log = logLines.join("");
    expect(log).toContain("/sign-in/github/callback");
    expect(log).toContain("/settings/tokens/");
    expect(log).toContain("/oauth/");
    // ...and holds no secret of it. Short values (a fake's counters) would match by chance.
    const meaningful = [...secrets].filter((secret) => secret.length >= 16);
    expect(meaningful.length).toBeGreaterThan(10);
    const leaked = meaningful.filter((secret) => log.includes(secret));
    expect(leaked.map((secret) => logLines.find((line) => line.includes(secret)))).toEqual([]);
  });
});
