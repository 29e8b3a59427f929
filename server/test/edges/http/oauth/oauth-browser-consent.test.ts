import type { Browser } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { launchBrowser } from "../../../../../test/support/browser.ts";
import { issueSignInLink } from "../../../../src/sessions/sign-in-links.ts";
import { addUser, grantCapability } from "../../../../src/users/index.ts";
import { describeWithBrowser } from "../../../support/describe-with-browser.ts";
import { useTestDatabase } from "../../../support/test-database.ts";
import { testServices } from "../../../support/test-services.ts";
import { type RunningApp, startApp } from "../../mcp/support/start-app.ts";
import { lines, REDIRECT, TestAuthProvider } from "./support/sdk-oauth-clients.ts";

/**
 * Consent in a real browser (Chromium through playwright-core): each MCP client line starts
 * with no token, is sent to the consent page, signs in there with a one-time link, where the user reads what is granted and clicks
 * Approve; the browser follows the redirects (the page's CSP allows the form to end at the
 * client's redirect origin) back to the client's redirect URI with the code.
 */

describeWithBrowser("OAuth consent in a real browser", () => {
  const db = useTestDatabase();
  let app: RunningApp;
  let browser: Browser;

  beforeAll(async () => {
    const ada = await addUser(db.sql, { handle: "ada" });
    await grantCapability(db.sql, { userId: ada.id, capability: "author" });
    app = await startApp(testServices(db.sql));
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  /** Opens the authorization URL, approves on the consent page, returns where the browser landed. */
  const consentInBrowser = async (authorizationUrl: string, seen: string[]): Promise<URL> => {
    // A fresh browser with no credential: the consent page sends it to sign in with a one-time
    // link (what an operator hands out) and back.
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(authorizationUrl);
      expect(new URL(page.url()).pathname).toBe("/sign-in");
      const returnTo = new URL(page.url()).searchParams.get("return_to")!;
      const link = await issueSignInLink(
        { sql: db.sql, clock: () => new Date() },
        { handle: "ada", baseUrl: app.url, returnTo },
      );
      await page.goto(link.url);
      await page.getByTestId("confirm-sign-in").click();
      await page.waitForURL((url) => url.pathname === returnTo);
      let landed: URL | undefined;
      await page.route(`${new URL(REDIRECT).origin}/**`, async (route) => {
        landed = new URL(route.request().url());
        await route.fulfill({ status: 200, contentType: "text/plain", body: "back at the client" });
      });
      seen.push(...(await page.getByTestId("scope").allTextContents()));
      seen.push(await page.getByTestId("immutable").innerText());
      await page.getByTestId("approve").click();
      await page.waitForURL((url) => url.origin === new URL(REDIRECT).origin);
      return landed!;
    } finally {
      await context.close();
    }
  };

  for (const line of lines) {
    it(`${line.name}: 401, discovery, registration, consent in Chromium, token, whoami`, async () => {
      const seen: string[] = [];
      const provider = new TestAuthProvider((url) => consentInBrowser(url, seen));
      const session = await line.connect(app.url, provider);
      expect(provider.callback.get("code")).toEqual(expect.any(String));
      expect(seen.join("\n")).toMatch(/^read: .*\ncontribute: .*\nauthor: .*\nPublications are immutable/s);
      expect(await session.whoami()).toMatchObject({
        user: { handle: "ada" },
        scopes: ["read", "contribute"],
        capabilities: ["author"],
      });
    });
  }
});
