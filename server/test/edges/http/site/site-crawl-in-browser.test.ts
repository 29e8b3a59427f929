import type { Browser, BrowserContext } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { launchBrowser } from "../../../../../test/support/browser.ts";
import type { Services } from "../../../../src/core/services/services.ts";
import { fixturePackage } from "../../../authoring/support/authoring-harness.ts";
import { sealing } from "../../../sealing/support/sealed-fixture.ts";
import { describeWithBrowser } from "../../../support/describe-with-browser.ts";
import { seedCampaign, seedProblem, seedUser } from "../../../support/seed-records.ts";
import { signInInBrowser } from "../../../support/sign-in-in-browser.ts";
import { useTestDatabase } from "../../../support/test-database.ts";
import { testServices } from "../../../support/test-services.ts";
import { publishProblem } from "../../../verification/support/verification-harness.ts";
import { type RunningApp, startApp } from "../../mcp/support/start-app.ts";
import { expectEveryLook, screenshot, seedScoredAndSealed, sidewaysScroll } from "./site-support.ts";

/** Links the crawl does not follow: bytes (downloads, logs, evidence files) and the machine document. */
const NOT_PAGES = [/^\/dl\//, /\/log$/, /\/evidence\/./, /^\/api\/openapi\.json$/, /^\/up\//];

/** A page's address with its ids and slugs generalised, so each kind of page is checked in full once. */
function templateOf(path: string): string {
  return path
    .replace(/\?.*$/, "")
    .replace(/\b[a-z]{3}_[0-9a-z]{10,32}\b/g, ":id")
    .replace(/^\/(problems|campaigns)\/[^/]+/, "/$1/:slug");
}

/**
 * The whole site as each kind of person sees it (issue 35), in Chromium: from `/`, every
 * same-site link is followed, as a visitor, a participant, an author and an administrator; no page
 * answers 4xx or 5xx or raw JSON, and none scrolls sideways at 375 px. One page of each kind passes
 * axe-core (no serious or critical violation) in light and dark at 375 and 1280 px, with a
 * screenshot of each. Also: a person makes a named token on /settings and sees it once, and the
 * "Connect an agent" page gives the MCP endpoint and the /api routes readably.
 */
describeWithBrowser("the whole site, crawled as each role", () => {
  const db = useTestDatabase();
  let services: Services;
  let app: RunningApp;
  let browser: Browser;
  const checked = new Set<string>();

  beforeAll(async () => {
    services = testServices(db.sql);
    const ada = await seedUser(db.sql, "ada", { capabilities: ["author", "trusted_author"] });
    const dee = await seedUser(db.sql, "dee");
    await seedUser(db.sql, "root", { admin: true });
    const campaignId = await seedCampaign(db.sql, {
      owner: ada.id,
      slug: "graphs",
      title: "Graph problems",
      summary: "Problems on graphs.",
      visibility: "listed",
    });
    await seedProblem(services, {
      owner: ada.id,
      slug: "colouring",
      title: "Graph colouring with a rather long title that has to wrap on a phone",
      campaignId,
      visibility: "listed",
      revision: {
        statement: "Colour $G$ with $\\chi(G)$ colours.\n\n| a | b |\n| ---: | :---: |\n| 1 | 2 |",
      },
    });
    const sat = await publishProblem(services, ada.principal, fixturePackage("valid-builtin-sat"));
    await db.sql`update problems set visibility = 'listed' where id = ${sat.problem_id}`;
    await seedScoredAndSealed(services, ada.id, {
      scores: [[dee.id, 42]],
      sealing: sealing({
        mode: "final_only",
        releaseAt: "2099-02-01T00:00:00.000Z",
        sealedUntil: "2099-03-01T00:00:00.000Z",
      }),
    });
    app = await startApp(services);
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  async function contextAs(handle: string | null): Promise<BrowserContext> {
    const context = await browser.newContext({ bypassCSP: true, viewport: { width: 375, height: 800 } });
    context.setDefaultTimeout(15_000);
    if (handle) {
      const page = await context.newPage();
      await signInInBrowser(page, db.sql, app.url, handle);
      await page.close();
    }
    return context;
  }

  async function crawl(role: string, handle: string | null, limit: number): Promise<string[]> {
    const context = await contextAs(handle);
    const page = await context.newPage();
    const seen = new Set<string>(["/"]);
    const queue = ["/"];
    const problems: string[] = [];
    try {
      while (queue.length > 0 && seen.size <= limit) {
        const path = queue.shift()!;
        const response = await page.goto(`${app.url}${path}`);
        const status = response?.status() ?? 0;
        const type = (await response?.headerValue("content-type")) ?? "";
        if (status >= 400) problems.push(`${role} ${path}: ${status}`);
        if (!type.startsWith("text/html")) {
          problems.push(`${role} ${path}: ${type}`);
          continue;
        }
        const overflow = await sidewaysScroll(page);
        if (overflow > 0) problems.push(`${role} ${path}: ${overflow} px of sideways scroll at 375 px`);
        const template = templateOf(new URL(page.url()).pathname + new URL(page.url()).search);
        if (!checked.has(template)) {
          checked.add(template);
          await expectEveryLook(page, `crawl-${role}${template.replace(/[^a-z0-9]+/gi, "-")}`);
        }
        const hrefs = await page
          .locator("a[href]")
          .evaluateAll((links) => links.map((a) => (a as unknown as { href: string }).href));
        for (const href of hrefs) {
          const url = new URL(href);
          if (url.origin !== new URL(app.url).origin) continue;
          const next = url.pathname + url.search;
          if (NOT_PAGES.some((pattern) => pattern.test(url.pathname)) || seen.has(next)) continue;
          seen.add(next);
          queue.push(next);
        }
      }
    } finally {
      await context.close();
    }
    expect(seen.size, `${role} reached pages`).toBeGreaterThan(5);
    return problems;
  }

  it("1. a visitor, a participant, an author and an administrator meet no error, no JSON, no sideways scroll", async () => {
    const problems = [
      ...(await crawl("visitor", null, 60)),
      ...(await crawl("participant", "dee", 80)),
      ...(await crawl("author", "ada", 80)),
      ...(await crawl("admin", "root", 80)),
    ];
    expect(problems).toEqual([]);
  }, 300_000);

  it("2. makes a named token on /settings, shown once, that authenticates; connect page lists MCP and /api", async () => {
    const context = await contextAs("dee");
    const page = await context.newPage();
    await page.goto(`${app.url}/settings`);
    await page.getByLabel("Name").fill("laptop agent");
    await page.getByLabel("Scope").selectOption("read");
    await page.getByLabel("Expires").selectOption("7d");
    await page.getByTestId("create-token").click();
    const secret = await page.getByTestId("new-token-secret").inputValue();
    expect(secret).toMatch(/^svc_[0-9A-Za-z]{40}$/);
    expect(await page.getByTestId("new-token-secret").getAttribute("readonly")).not.toBeNull();
    expect(await page.getByTestId("own-tokens").getByTestId("token-name").textContent()).toBe("laptop agent");
    await screenshot(page, "settings-new-token");
    const me = await fetch(`${app.url}/api/whoami`, { headers: { authorization: `Bearer ${secret}` } });
    expect(me.status).toBe(200);
    // Read scope only, expiring in 7 days; a reload shows the prefix, never the secret again.
    const [row] = await db.sql<{ scopes: string[]; days: number }[]>`
      select scopes, round(extract(epoch from expires_at - created_at) / 86400)::int as days
      from api_tokens where name = 'laptop agent'`;
    expect(row).toEqual({ scopes: ["read"], days: 7 });
    await page.goto(`${app.url}/settings`);
    expect(await page.content()).not.toContain(secret);

    await page.goto(`${app.url}/`);
    await page.getByRole("link", { name: "Connect an agent" }).click();
    expect(await page.locator("#mcp-url").inputValue()).toBe(`${app.url}/mcp`);
    expect(await page.locator("#claude-code").inputValue()).toContain(
      `claude mcp add --transport http svc ${app.url}/mcp`,
    );
    expect(await page.locator("#api dl, h2#api ~ dl").first().textContent()).toMatch(/GET \/api\//);
    await context.close();
  });
});
