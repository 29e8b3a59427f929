import type { Page } from "playwright-core";
import type { Pool } from "../../src/core/db/connect-sql.ts";
import { issueSignInLink } from "../../src/sessions/sign-in-links.ts";

/** Signs `page`'s browser in as `handle` the way a person does: an operator's one-time link, confirmed; it lands on /settings. */
export async function signInInBrowser(page: Page, sql: Pool, appUrl: string, handle: string): Promise<void> {
  const link = await issueSignInLink({ sql, clock: () => new Date() }, { handle, baseUrl: appUrl });
  await page.goto(link.url);
  await page.getByTestId("confirm-sign-in").click();
  await page.waitForURL((url) => url.pathname === "/settings");
}
