import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { launchBrowser } from "../../../../../test/support/browser.ts";
import { sealedContract, sealing } from "../../../sealing/support/sealed-fixture.ts";
import { describeWithBrowser } from "../../../support/describe-with-browser.ts";
import {
  contractDocument,
  type SeededUser,
  seedContract,
  seedFinishedRun,
  seedImplementation,
  seedProblem,
  seedUser,
} from "../../../support/seed-records.ts";
import { signInInBrowser } from "../../../support/sign-in-in-browser.ts";
import { useTestDatabase } from "../../../support/test-database.ts";
import { testServices } from "../../../support/test-services.ts";
import { type RunningApp, startApp } from "../../mcp/support/start-app.ts";
import { expectAccessible, screenshot } from "./site-support.ts";

/**
 * The participant's dashboard (`/me`) in Chromium: signed in only; the caller's own Attempts,
 * newest first, in pages of 20, each with its Submissions and their latest run; a run on sealed
 * final_only work shows "withheld", as the run page does; nobody else's work appears.
 */
describeWithBrowser("the participant's dashboard in a real browser", () => {
  const db = useTestDatabase();
  let app: RunningApp;
  let browser: Browser;
  let dee: SeededUser;
  let sealedRun: string;
  let firstRun: string;

  beforeAll(async () => {
    const services = testServices(db.sql);
    const owner = await seedUser(db.sql, "ada", { capabilities: ["author"] });
    dee = await seedUser(db.sql, "dee");
    const bob = await seedUser(db.sql, "bob");
    const contractId = await seedContract(db.sql, owner.id, sealedContract());
    await seedImplementation(db.sql, { contractId, stageKey: "check", author: owner.id });
    // A run's Contract is its revision's (migration 040): each Problem pins the one its runs name.
    const plainContractId = await seedContract(db.sql, owner.id, contractDocument());
    const plain = await seedProblem(services, {
      owner: owner.id,
      slug: "plain-sat",
      title: "Plain satisfiability",
      visibility: "listed",
      revision: { verifierContractId: plainContractId },
    });
    const sealed = await seedProblem(services, {
      owner: owner.id,
      slug: "sealed-sat",
      title: "Sealed satisfiability",
      visibility: "listed",
      revision: {
        statement: "Satisfy the sealed instance.",
        verifierContractId: contractId,
        bindings: [{ key: "instance", bytes: "p cnf 1 1\n1 0\n", filename: "instance.cnf" }],
        sealing: sealing({
          mode: "final_only",
          releaseAt: "2099-02-01T00:00:00.000Z",
          sealedUntil: "2099-03-01T00:00:00.000Z",
        }),
      },
    });
    const run = (problem: typeof plain, userId: string) =>
      seedFinishedRun(db.sql, {
        problemId: problem.problemId,
        revisionId: problem.revisionId,
        contractId: problem === plain ? plainContractId : contractId,
        userId,
        result: "verified",
      });
    firstRun = await run(plain, dee.id);
    for (let i = 0; i < 19; i++) await run(plain, dee.id);
    await run(plain, bob.id);
    sealedRun = await run(sealed, dee.id);
    app = await startApp(services);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  const signedIn = async (handle: string): Promise<BrowserContext> => {
    const context = await browser.newContext({ bypassCSP: true });
    context.setDefaultTimeout(10_000);
    const page = await context.newPage();
    await signInInBrowser(page, db.sql, app.url, handle);
    await page.close();
    return context;
  };
  const attemptRows = (page: Page) => page.getByTestId("attempts").locator("tbody > tr");

  it("1. a visitor who is not signed in is sent to sign in and back", async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${app.url}/me`);
      expect(new URL(page.url()).pathname).toBe("/sign-in");
      expect(new URL(page.url()).searchParams.get("return_to")).toBe("/me");
    } finally {
      await context.close();
    }
  });

  it("2. lists the caller's attempts newest first with each run's result, sealed results withheld, in pages", async () => {
    const context = await signedIn("dee");
    try {
      const page = await context.newPage();
      await page.goto(`${app.url}/`);
      await page.getByRole("link", { name: "My attempts" }).click();
      expect(new URL(page.url()).pathname).toBe("/me");
      expect(await page.getByRole("link", { name: "My attempts" }).getAttribute("aria-current")).toBe("page");
      const rows = attemptRows(page);
      expect(await rows.count()).toBe(20);
      const newest = rows.first();
      expect(await newest.locator("td").first().locator("a").textContent()).toBe("sealed-sat");
      expect(await newest.getByTestId("run-result").textContent()).toBe("withheld");
      expect(await newest.locator(`a[href="/verifications/${sealedRun}"]`).count()).toBe(1);
      expect(await rows.nth(1).getByTestId("run-result").textContent()).toBe("verified");
      await expectAccessible(page);
      await screenshot(page, "dashboard");

      await page.getByRole("link", { name: "Next page" }).click();
      expect(await attemptRows(page).count()).toBe(1);
      expect(await page.locator(`a[href="/verifications/${firstRun}"]`).count()).toBe(1);
      expect(await page.getByRole("link", { name: "Next page" }).count()).toBe(0);
      // Nobody else's attempt: 21 of dee's, none of bob's.
      const ids = await db.sql<{ id: string }[]>`
        select a.id from attempts a join users u on u.id = a.user_id where u.handle = 'bob'`;
      expect(await page.locator(`tr[data-attempt="${ids[0]!.id}"]`).count()).toBe(0);

      await page.getByRole("link", { name: /run finished/ }).click();
      expect(await page.getByTestId("result").textContent()).toBe("verified");

      const bad = await context.newPage();
      const answer = await bad.goto(`${app.url}/me?cursor=not-a-cursor`);
      expect(answer!.status()).toBe(400);
      expect(await bad.getByTestId("error").textContent()).toContain("cursor");
    } finally {
      await context.close();
    }
  });
});
