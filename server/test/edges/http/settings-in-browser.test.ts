import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { launchBrowser } from "../../../../test/support/browser.ts";
import { authorizeCli, pollCliLogin, startCliLogin } from "../../../src/oauth/cli-login.ts";
import { authenticate } from "../../../src/users/authenticate.ts";
import { addUser, grantCapability, issueToken } from "../../../src/users/index.ts";
import { describeWithBrowser } from "../../support/describe-with-browser.ts";
import { signInInBrowser } from "../../support/sign-in-in-browser.ts";
import { useTestDatabase } from "../../support/test-database.ts";
import { testServices } from "../../support/test-services.ts";
import { type RunningApp, startApp } from "../mcp/support/start-app.ts";

/**
 * The settings page in a real browser (Chromium through playwright-core): a person signs in with
 * an operator's one-time link, sees their access and every credential that acts as them with its
 * last use, revokes one with its button (refused from its next request), a form POST without the
 * CSRF token is refused and changes nothing, and sign out everywhere ends another browser's
 * session.
 */

describeWithBrowser("the settings page in a real browser", () => {
  const db = useTestDatabase();
  let app: RunningApp;
  let browser: Browser;
  let operatorToken: string;
  let cliToken: string;
  let bobToken: string;

  beforeAll(async () => {
    const ada = await addUser(db.sql, { handle: "ada" });
    await addUser(db.sql, { handle: "bob" });
    await grantCapability(db.sql, { userId: ada.id, capability: "author" });
    operatorToken = (await issueToken(db.sql, "ada", ["read", "contribute"])).token;
    bobToken = (await issueToken(db.sql, "bob", ["read"])).token;
    // A command line's token, as `svc login --mcp` gets it once ada's agent approves the code.
    const login = await startCliLogin(db.sql, { client_name: "svc on ada's laptop" });
    const adaPrincipal = (await authenticate(db.sql, operatorToken))!;
    await authorizeCli(
      db.sql,
      { principal: adaPrincipal, baseUrl: "http://svc.test" },
      { code: login.user_code },
    );
    const polled = await pollCliLogin(db.sql, login.poll_token);
    if (polled.status !== "approved") throw new Error(`the CLI login was not approved: ${polled.status}`);
    cliToken = polled.token;
    app = await startApp(testServices(db.sql));
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  const whoamiStatus = async (token: string) =>
    (await fetch(`${app.url}/api/whoami`, { headers: { authorization: `Bearer ${token}` } })).status;

  /** A fresh browser signed in as `handle` with a one-time link; it lands on /settings. */
  const signedInBrowser = async (handle: string): Promise<{ context: BrowserContext; page: Page }> => {
    const context = await browser.newContext({ userAgent: `settings-test ${handle} ${Math.random()}` });
    const page = await context.newPage();
    await signInInBrowser(page, db.sql, app.url, handle);
    return { context, page };
  };

  it("sends a browser that is not signed in to sign-in and back", async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${app.url}/settings`);
      expect(new URL(page.url()).pathname).toBe("/sign-in");
      expect(new URL(page.url()).searchParams.get("return_to")).toBe("/settings");
    } finally {
      await context.close();
    }
  });

  it("lists access and credentials with last use; a revoke button ends a token at once", async () => {
    expect(await whoamiStatus(operatorToken)).toBe(200); // a use the page will show
    const { context, page } = await signedInBrowser("ada");
    try {
      expect(await page.getByTestId("handle").innerText()).toBe("ada");
      expect(await page.getByTestId("capabilities").innerText()).toBe("author");
      expect(await page.getByTestId("access-grant").first().innerText()).toMatch(
        /^author\s+an operator, \d{4}-/,
      );

      const operatorRow = page.getByTestId("operator-tokens").getByTestId("token");
      expect(await operatorRow.count()).toBe(1);
      expect(await operatorRow.getByTestId("token-prefix").innerText()).toBe(operatorToken.slice(0, 12));
      expect(await operatorRow.getByTestId("token-last-used").innerText()).toMatch(
        /^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/,
      );
      const cliRow = page.getByTestId("cli-tokens").getByTestId("token");
      expect(await cliRow.innerText()).toContain("svc on ada's laptop");
      expect(await cliRow.getByTestId("token-last-used").innerText()).toBe("never");
      // No secret is ever shown: only the public prefix.
      expect(await page.content()).not.toContain(operatorToken);
      expect(await page.getByTestId("this-session").count()).toBe(1);

      await operatorRow.getByTestId("revoke").click();
      await page.waitForURL((url) => url.searchParams.get("done") === "token");
      expect(await page.getByTestId("notice").innerText()).toMatch(/Token revoked/);
      expect(await page.getByTestId("operator-tokens-none").count()).toBe(1);
      expect(await whoamiStatus(operatorToken)).toBe(401);
      expect(await whoamiStatus(cliToken)).toBe(200);
    } finally {
      await context.close();
    }
  });

  it("refuses a form POST without the CSRF token, and another user's token, losing nothing", async () => {
    const { context, page } = await signedInBrowser("ada");
    try {
      const cliTokenId = await tokenIdOf(cliToken);
      // The browser's own cookie, but no _csrf field: what a forged cross-site form would send.
      const forged = await context.request.post(`${app.url}/settings/tokens/${cliTokenId}/revoke`, {
        form: { other: "x" },
        headers: { accept: "application/json" },
        maxRedirects: 0,
      });
      expect(forged.status()).toBe(403);
      expect((await forged.json()).error.code).toBe("csrf_failed");
      expect(await whoamiStatus(cliToken)).toBe(200);

      // With the page's CSRF token, bob's token is not ada's to revoke: not found, bob keeps it.
      const csrf = await page.locator('input[name="_csrf"]').first().getAttribute("value");
      const notHers = await context.request.post(
        `${app.url}/settings/tokens/${await tokenIdOf(bobToken)}/revoke`,
        {
          form: { _csrf: csrf! },
          headers: { accept: "application/json" },
          maxRedirects: 0,
        },
      );
      expect(notHers.status()).toBe(404);
      expect((await notHers.json()).error.code).toBe("not_found");
      expect(await whoamiStatus(bobToken)).toBe(200);
    } finally {
      await context.close();
    }
  });

  it("signs out one browser, and signs out everywhere", async () => {
    const first = await signedInBrowser("ada");
    const second = await signedInBrowser("ada");
    const third = await signedInBrowser("ada");
    try {
      // The first browser signs the second out from its list of sessions.
      await first.page.reload();
      const secondAgent = await second.page.evaluate(() => navigator.userAgent);
      const secondRow = first.page.getByTestId("session").filter({ hasText: secondAgent });
      await secondRow.getByTestId("revoke").click();
      await first.page.waitForURL((url) => url.searchParams.get("done") === "session");
      await second.page.goto(`${app.url}/settings`);
      expect(new URL(second.page.url()).pathname).toBe("/sign-in");

      // Sign out everywhere from the third ends the first too.
      await third.page.getByTestId("sign-out-everywhere").click();
      await third.page.waitForURL((url) => url.pathname === "/sign-in");
      await first.page.goto(`${app.url}/settings`);
      expect(new URL(first.page.url()).pathname).toBe("/sign-in");
      await third.page.goto(`${app.url}/settings`);
      expect(new URL(third.page.url()).pathname).toBe("/sign-in");

      // Plain sign out ends only this browser.
      const fourth = await signedInBrowser("ada");
      const fifth = await signedInBrowser("ada");
      await fourth.page.getByTestId("sign-out").click();
      await fourth.page.waitForURL((url) => url.pathname === "/sign-in");
      await fourth.page.goto(`${app.url}/settings`);
      expect(new URL(fourth.page.url()).pathname).toBe("/sign-in");
      await fifth.page.goto(`${app.url}/settings`);
      expect(new URL(fifth.page.url()).pathname).toBe("/settings");
      await fourth.context.close();
      await fifth.context.close();
    } finally {
      await first.context.close();
      await second.context.close();
      await third.context.close();
    }
  });

  const tokenIdOf = async (token: string): Promise<string> => {
    const [row] = await db.sql<
      { id: string }[]
    >`select id from api_tokens where prefix = ${token.slice(0, 12)}`;
    return row!.id;
  };
});
