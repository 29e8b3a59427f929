import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { launchBrowser } from "../../../../../test/support/browser.ts";
import { sealedContract, sealing } from "../../../sealing/support/sealed-fixture.ts";
import { describeWithBrowser } from "../../../support/describe-with-browser.ts";
import {
  type SeededUser,
  seedCampaign,
  seedContract,
  seedImplementation,
  seedProblem,
  seedRevision,
  seedUser,
} from "../../../support/seed-records.ts";
import { signInInBrowser } from "../../../support/sign-in-in-browser.ts";
import { useTestDatabase } from "../../../support/test-database.ts";
import { testServices } from "../../../support/test-services.ts";
import { type RunningApp, startApp } from "../../mcp/support/start-app.ts";
import { expectAccessible, screenshot } from "./site-support.ts";

const HOSTILE_STATEMENT = [
  "# Count the islands",
  "",
  "<script>window.__pwned = 'script'</script>",
  "",
  '<img src="x" onerror="window.__pwned = \'img\'">',
  "",
  "A [harmless link](https://example.com/grids) and a [hostile one](javascript:window.__pwned='link').",
  "",
  "<a href=\"javascript:window.__pwned='raw-link'\">raw anchor</a>",
].join("\n");

/**
 * The website's reading pages in Chromium (playwright-core): Explore with search_problems' filters
 * and pages, a Campaign's open Problems in priority order, a Problem with its statement rendered
 * from hostile Markdown, sealed inputs shown as sealed with no link, revision history and diff,
 * what a signed-in reader sees beyond a visitor, refusals as pages; every page passes axe-core
 * with no serious violation and leaves a screenshot in test-results/screenshots/.
 */
describeWithBrowser("the website's reading pages in a real browser", () => {
  const db = useTestDatabase();
  let app: RunningApp;
  let browser: Browser;
  let visitor: BrowserContext;
  let owner: SeededUser;

  beforeAll(async () => {
    const services = testServices(db.sql);
    owner = await seedUser(db.sql, "ada", { capabilities: ["author"] });
    await seedUser(db.sql, "bob");
    const campaignId = await seedCampaign(db.sql, {
      owner: owner.id,
      slug: "graphs",
      title: "Graph problems",
      summary: "Problems on graphs, ranked by priority.",
      visibility: "listed",
    });
    for (const [slug, weight] of [
      ["low-colouring", 0.2],
      ["high-colouring", 0.9],
      ["mid-colouring", 0.5],
    ] as const) {
      await seedProblem(services, {
        owner: owner.id,
        slug,
        title: `Graph colouring ${slug.split("-")[0]}`,
        campaignId,
        priorityWeight: weight,
        visibility: "listed",
      });
    }
    // Enough listed standalone problems for two Explore pages of 50.
    for (let i = 0; i < 52; i++) {
      await seedProblem(services, {
        owner: owner.id,
        slug: `lattice-${String(i).padStart(2, "0")}`,
        title: `Lattice walk ${i}`,
        visibility: "listed",
        revision: { statement: "Count lattice walks." },
      });
    }
    await seedProblem(services, {
      owner: owner.id,
      slug: "hidden-draft",
      title: "A private draft",
      visibility: "private",
    });
    await seedProblem(services, {
      owner: owner.id,
      slug: "fastest-sort",
      title: "Fastest sort",
      structure: "BENCHMARK",
      visibility: "listed",
      revision: {
        statement: "Sort a million keys.",
        benchmark: { metric_name: "wall time", direction: "minimize", unit: "ms", baseline: 120 },
      },
    });
    const islands = await seedProblem(services, {
      owner: owner.id,
      slug: "islands",
      title: "Islands",
      visibility: "listed",
      revision: { statement: HOSTILE_STATEMENT },
    });
    await seedRevision(services, islands.problemId, owner.id, {
      statement: HOSTILE_STATEMENT.replace("Count the islands", "Count the islands of a grid"),
      changelog: "Say that the islands are on a **grid**.",
    });
    const contractId = await seedContract(db.sql, owner.id, sealedContract());
    await seedImplementation(db.sql, { contractId, stageKey: "check", author: owner.id });
    await seedProblem(services, {
      owner: owner.id,
      slug: "sealed-sat",
      title: "Sealed satisfiability",
      visibility: "listed",
      revision: {
        statement: "Satisfy the sealed instance.",
        verifierContractId: contractId,
        bindings: [
          { key: "instance", bytes: "p cnf 1 1\n1 0\n", filename: "instance.cnf" },
          { key: "notes", bytes: "public notes", filename: "notes.txt" },
        ],
        sealing: sealing({
          mode: "final_only",
          releaseAt: "2099-02-01T00:00:00.000Z",
          sealedUntil: "2099-03-01T00:00:00.000Z",
        }),
      },
    });
    app = await startApp(services);
    browser = await launchBrowser();
    // axe is injected into the pages, which the Content-Security-Policy would refuse.
    visitor = await browser.newContext({ bypassCSP: true });
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  const open = async (context: BrowserContext, path: string): Promise<Page> => {
    const page = await context.newPage();
    page.on("dialog", (dialog) => {
      throw new Error(`a dialog opened: ${dialog.message()}`);
    });
    await page.goto(`${app.url}${path}`);
    return page;
  };
  const signedIn = async (handle: string): Promise<BrowserContext> => {
    const context = await browser.newContext({ bypassCSP: true });
    const page = await context.newPage();
    await signInInBrowser(page, db.sql, app.url, handle);
    await page.close();
    return context;
  };

  it("1. Explore lists listed campaigns and problems, searches, filters and pages like search_problems", async () => {
    const page = await open(visitor, "/");
    await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Explore");
    expect(await page.getByRole("link", { name: "Graph problems" }).count()).toBe(1);
    const titles = await page.getByTestId("problems").locator("tbody tr td:first-child a").allTextContents();
    expect(titles).toHaveLength(50);
    expect(titles).not.toContain("A private draft");
    await expectAccessible(page);
    await screenshot(page, "explore");

    await page.getByRole("link", { name: "Next page" }).click();
    const rest = await page.getByTestId("problems").locator("tbody tr td:first-child a").allTextContents();
    expect(rest.length).toBe(58 - 50);
    expect(new Set([...titles, ...rest]).size).toBe(58);

    await page.goto(`${app.url}/`);
    await page.locator("input[name=q]").fill("colouring");
    await page.locator("select[name=structure]").selectOption("SOLVE");
    await page.getByRole("button", { name: "Search" }).click();
    const found = await page.getByTestId("problems").locator("tbody tr td:first-child a").allTextContents();
    expect(found.sort()).toEqual(["Graph colouring high", "Graph colouring low", "Graph colouring mid"]);
    expect(new URL(page.url()).searchParams.get("q")).toBe("colouring");

    await page.locator("select[name=structure]").selectOption("BENCHMARK");
    await page.locator("input[name=q]").fill("");
    await page.getByRole("button", { name: "Search" }).click();
    expect(await page.getByTestId("problems").locator("tbody tr td:first-child a").allTextContents()).toEqual(
      ["Fastest sort"],
    );
  });

  it("2. a campaign page shows its open problems, highest priority first", async () => {
    const page = await open(visitor, "/campaigns/graphs");
    expect(
      await page.getByTestId("campaign-problems").locator("tbody tr td:first-child a").allTextContents(),
    ).toEqual(["Graph colouring high", "Graph colouring mid", "Graph colouring low"]);
    await expectAccessible(page);
    await screenshot(page, "campaign");
  });

  it("3. a statement holding <script>, <img onerror> and javascript: links renders none of them live", async () => {
    const page = await open(visitor, "/problems/islands");
    const statement = page.getByTestId("statement");
    expect(await statement.locator("script, img, iframe, [onerror]").count()).toBe(0);
    expect(await statement.locator('a[href^="javascript"]').count()).toBe(0);
    expect(await statement.textContent()).toContain("<script>window.__pwned = 'script'</script>");
    const links = statement.locator("a");
    expect(await links.evaluateAll((as) => as.map((a) => a.getAttribute("href")))).toEqual([
      "https://example.com/grids",
    ]);
    expect(await page.evaluate(() => (globalThis as { __pwned?: string }).__pwned)).toBeUndefined();
    await expectAccessible(page);
    await screenshot(page, "problem");
  });

  it("4. revision history with changelogs, an earlier revision, and the diff between them", async () => {
    const page = await open(visitor, "/problems/islands");
    const history = page.getByTestId("history");
    expect(await history.locator("li").count()).toBe(2);
    expect(await history.locator("li[data-revision='2'] strong").last().textContent()).toBe("grid");
    await page.getByRole("link", { name: "Revision 1" }).click();
    expect(await page.getByTestId("older-revision").textContent()).toContain("You are reading revision 1");
    await page.goto(`${app.url}/problems/islands`);
    await page.getByRole("link", { name: "changes from 1" }).click();
    const diff = page.getByTestId("diff");
    expect(await diff.locator("del").allTextContents()).toEqual(["# Count the islands\n"]);
    expect(await diff.locator("ins").allTextContents()).toEqual(["# Count the islands of a grid\n"]);
    await expectAccessible(page);
    await screenshot(page, "problem-diff");
  });

  it("5. sealed inputs are shown as sealed, with their date and no link; a visitor gets no link to public bytes either", async () => {
    const page = await open(visitor, "/problems/sealed-sat");
    const sealedRow = page.locator("tr[data-reference='instance']");
    expect(await sealedRow.textContent()).toContain("sealed until 2099-03-01T00:00:00.000Z");
    expect(await sealedRow.locator("a").count()).toBe(0);
    expect(await page.locator("tr[data-reference='notes'] a").count()).toBe(0);
    expect(await page.getByTestId("sealing").textContent()).toContain(
      "withheld until 2099-02-01T00:00:00.000Z",
    );
    expect(await page.getByTestId("stages").locator("tr[data-stage='check']").count()).toBe(1);
    await expectAccessible(page);
    await screenshot(page, "problem-sealed");
  });

  it("6. signed in, a reader also sees their own private work, links to public bytes and their allowance", async () => {
    const context = await signedIn("ada");
    try {
      const explore = await open(context, "/?q=draft");
      expect(await explore.getByTestId("problems").locator("tbody a").allTextContents()).toEqual([
        "A private draft",
      ]);
      expect(await explore.getByRole("link", { name: "ada" }).count()).toBe(1);
      const sealed = await open(context, "/problems/sealed-sat");
      expect(await sealed.locator("tr[data-reference='instance'] a").count()).toBe(0);
      const download = sealed.locator("tr[data-reference='notes'] a");
      expect(await download.textContent()).toBe("Download");
      const bytes = await fetch(String(await download.getAttribute("href")));
      expect(await bytes.text()).toBe("public notes");
      expect(await sealed.getByTestId("allowance").textContent()).toContain(
        "0 of 100 in 24 h used; 100 left",
      );
      await expectAccessible(sealed);
      await screenshot(sealed, "problem-signed-in");
    } finally {
      await context.close();
    }
  });

  it("7. the benchmark metric; a private problem is not found for a visitor; a bad filter is a page that names it", async () => {
    const benchmark = await open(visitor, "/problems/fastest-sort");
    expect(await benchmark.getByTestId("benchmark").textContent()).toContain("wall time (ms)");
    expect(await benchmark.getByTestId("benchmark").textContent()).toContain("minimize: lower is better");

    const hidden = await visitor.newPage();
    const answer = await hidden.goto(`${app.url}/problems/hidden-draft`);
    expect(answer!.status()).toBe(404);
    expect(await hidden.getByTestId("error").getAttribute("data-code")).toBe("not_found");
    await expectAccessible(hidden);
    await screenshot(hidden, "not-found");

    const refused = await visitor.newPage();
    const bad = await refused.goto(`${app.url}/?order=loudest`);
    expect(bad!.status()).toBe(200);
    expect(await refused.getByTestId("explore-error").textContent()).toMatch(/^order: /);
    const badDiff = await refused.goto(`${app.url}/problems/islands/diff?from=one&to=2`);
    expect(badDiff!.status()).toBe(400);
    expect(await refused.getByTestId("error").textContent()).toContain("give two revision numbers");
  });
});
