import type { Runner } from "graphile-worker";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { launchBrowser } from "../../../../../test/support/browser.ts";
import type { Services } from "../../../../src/core/services/services.ts";
import { startWorker } from "../../../../src/edges/worker/start-worker.ts";
import { claimReview } from "../../../../src/reviews/claim-review.ts";
import { pickReview } from "../../../../src/reviews/read/pick-review.ts";
import { submitReviewResponse } from "../../../../src/reviews/submit-review-response.ts";
import { viewerOf } from "../../../../src/visibility/viewer.ts";
import { satWithReviewStage } from "../../../authoring/support/authoring-harness.ts";
import { describeWithBrowser } from "../../../support/describe-with-browser.ts";
import { type SeededUser, seedUser } from "../../../support/seed-records.ts";
import { signInInBrowser } from "../../../support/sign-in-in-browser.ts";
import { useTestDatabase } from "../../../support/test-database.ts";
import { testServices } from "../../../support/test-services.ts";
import { publishProblem } from "../../../verification/support/verification-harness.ts";
import { clientLines, envelopeOf, type TestClient } from "../../mcp/support/mcp-clients.ts";
import { type RunningApp, startApp } from "../../mcp/support/start-app.ts";
import { expectAccessible, expectEveryLook, screenshot } from "./site-support.ts";

/**
 * Issue 16's reviewing pages in Chromium, over the real app and a real worker (the set-up of the
 * review acceptance test): a Contract with a builtin sandbox stage and a two-reviewer review
 * stage; a participant submits over MCP; a reviewer signs in, finds the seat on /reviews, claims
 * it, submits a response that breaks the rubric (the refusal is shown with each problem, the
 * entered values kept, the claim still open), corrects it; a second reviewer accepts; the
 * submitter's run page shows `verified`. Another seat is claimed and declined. Every page passes
 * axe-core and leaves a screenshot.
 */
describeWithBrowser("the reviewing pages in a real browser", () => {
  const db = useTestDatabase();
  let services: Services;
  let app: RunningApp;
  let worker: Runner;
  let browser: Browser;
  let submitter: SeededUser;
  let reviewer: SeededUser;
  let second: SeededUser;
  let runId: string;
  const clients: TestClient[] = [];
  let submit: () => Promise<string>;

  beforeAll(async () => {
    services = testServices(db.sql);
    app = await startApp(services);
    worker = await startWorker(services, { concurrency: 2, pollInterval: 100 });
    const author = await seedUser(db.sql, "review-author", { capabilities: ["author"] });
    submitter = await seedUser(db.sql, "sat-solver-b1", { scopes: ["read", "contribute"] });
    reviewer = await seedUser(db.sql, "rev-browser", { scopes: ["read", "contribute"] });
    second = await seedUser(db.sql, "rev-second", { scopes: ["read", "contribute"] });
    const files = satWithReviewStage();
    const problem = await publishProblem(services, author.principal, files);
    await db.sql`update problems set visibility = 'listed' where id = ${problem.problem_id}`;
    await settled(async () => {
      const [row] = await db.sql<{ pending: number }[]>`
        select count(*)::int as pending from verifier_implementations where conformance->>'status' = 'pending'`;
      return row!.pending === 0 ? true : null;
    }, "conformance");

    // The participant submits a satisfying assignment over MCP.
    const client = await clientLines[0].connect(app.url, submitter.token);
    clients.push(client);
    const call = async (name: string, args: Record<string, unknown>) => {
      const result = await client.callTool(name, args);
      const envelope = envelopeOf(result) as Record<string, any>;
      if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(envelope)}`);
      return envelope;
    };
    submit = async () => {
      const { attempt } = await call("start_attempt", { problem: "small-sat" });
      const { artifact } = await call("upload_artifact", {
        attempt_id: attempt.id,
        filename: "answer.txt",
        content_text: "v 1 2 -3 0\n",
      });
      const { verification_run_id } = await call("create_submission", {
        attempt_id: attempt.id,
        artifacts: [{ role: "assignment", artifact_id: artifact.id }],
      });
      return verification_run_id as string;
    };
    runId = await submit();
    // Once the sandbox stage passed, the review stage offers its seats.
    await settled(async () => {
      const { seats } = await pickReview(services, viewerOf(reviewer.principal), { limit: 10 }, app.url);
      return seats[0] ?? null;
    }, "a review seat");
    browser = await launchBrowser();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    for (const client of clients) await client.close();
    await worker?.stop();
    await app?.close();
  });

  const signedIn = async (handle: string, javaScriptEnabled = true): Promise<BrowserContext> => {
    // axe is injected into the pages, which the Content-Security-Policy would refuse.
    const context = await browser.newContext({ bypassCSP: true, javaScriptEnabled });
    context.setDefaultTimeout(15_000);
    const page = await context.newPage();
    await signInInBrowser(page, db.sql, app.url, handle);
    await page.close();
    return context;
  };
  const check = async (page: Page, name: string) => {
    await expectAccessible(page);
    await screenshot(page, name);
  };
  /** The pages only reviewers reach (the crawl finds no open seat): every scheme and width. */
  const checkEveryLook = (page: Page, name: string) => expectEveryLook(page, name);

  it("1. a reviewer finds the seat, claims it, is refused for breaking the rubric, corrects it; the run is verified", async () => {
    const context = await signedIn("rev-browser");
    try {
      const page = await context.newPage();
      await page.goto(`${app.url}/`);
      await page.getByRole("link", { name: "Reviews", exact: true }).click();
      expect(new URL(page.url()).pathname).toBe("/reviews");
      const seat = page.getByTestId("seats").locator("tbody tr");
      expect(await seat.count()).toBe(1);
      expect(await seat.getByTestId("open-seats").textContent()).toBe("2");
      await checkEveryLook(page, "reviews-open-seats");

      // The case first (reading it claims nothing), then Claim from the seat list.
      await seat.locator("td").first().locator("a").click();
      expect(await page.getByTestId("instructions").textContent()).toContain("Accept the essay");
      await checkEveryLook(page, "review-case");
      await page.goBack();
      await page.getByTestId("seats").getByTestId("claim").click();
      expect(new URL(page.url()).pathname).toMatch(/^\/review-assignments\/ras_/);
      const assignmentPath = new URL(page.url()).pathname;
      expect(await page.getByTestId("hold").textContent()).toMatch(
        /^Your hold lasts until \d{4}-\d\d-\d\dT[\d:.]+Z: (\d+ h )?\d+ min left\./,
      );
      await checkEveryLook(page, "review-assignment");

      // The form carries the rubric's demands: the browser asks for the verdict and the rationale.
      expect(await page.getByLabel("verdict (required)").getAttribute("required")).toBe("");
      expect(await page.getByLabel(/^Rationale/).getAttribute("required")).toBe("");
      expect(await page.getByTestId("materials").count()).toBe(1);
      // Past the browser's checks (a client that skips them), the rubric check still refuses:
      // no verdict and no rationale, every problem named, the values entered kept.
      await page.getByTestId("response-form").evaluate((form) => {
        (form as unknown as { noValidate: boolean }).noValidate = true;
      });
      await page.getByLabel("Confidence, from 0 to 1").fill("0.7");
      await page.locator('[name="citations.0.source"]').fill("svc://artifacts/answer.txt");
      await page.getByLabel("Provider", { exact: true }).fill("anthropic");
      await page.getByLabel("Model", { exact: true }).fill("claude");
      await page.getByLabel(/^Configuration, a JSON object/).fill("effort: high");
      await page.getByTestId("submit-response").click();
      const refusal = page.getByTestId("refusal");
      expect(await refusal.isVisible()).toBe(true);
      const problems = await refusal.locator("li code").allTextContents();
      expect(problems).toEqual(expect.arrayContaining(["/rationale_md", "/assistance/config"]));
      expect(problems.some((path) => path.startsWith("/response"))).toBe(true);
      expect(await page.getByLabel("Confidence, from 0 to 1").inputValue()).toBe("0.7");
      expect(await page.locator('[name="citations.0.source"]').inputValue()).toBe(
        "svc://artifacts/answer.txt",
      );
      expect(await page.getByLabel(/^Configuration, a JSON object/).inputValue()).toBe("effort: high");
      expect(await page.getByTestId("response-form").count()).toBe(1);
      await check(page, "review-assignment-refused");
      const [held] = await db.sql<{ status: string }[]>`
        select status from review_assignments where id = ${assignmentPath.split("/").pop()!}`;
      expect(held!.status).toBe("claimed");

      // Corrected: accepted, and the page shows the submitted judgment with no form.
      await page.getByLabel("verdict (required)").selectOption({ label: "accept" });
      await page.getByLabel(/^Rationale/).fill("Every clause holds under the assignment.");
      await page.getByLabel(/^Configuration, a JSON object/).fill('{"effort": "high"}');
      await page.getByTestId("submit-response").click();
      expect(new URL(page.url()).pathname).toBe(assignmentPath);
      const [declared] = await db.sql<{ assistance: unknown }[]>`
        select assistance from review_assignments where id = ${assignmentPath.split("/").pop()!}`;
      expect(declared!.assistance).toEqual({
        provider: "anthropic",
        model: "claude",
        config: { effort: "high" },
      });
      expect(await page.getByRole("cell", { name: "submitted" }).count()).toBe(1);
      expect(await page.getByTestId("response-form").count()).toBe(0);

      await page.goto(`${app.url}/reviews/mine`);
      expect(
        await page.getByTestId("assignments").getByTestId("assignment-status").allTextContents(),
      ).toEqual(["submitted"]);
      await check(page, "reviews-mine");
      // The seat left open is on the node this reviewer already answered: nothing for them.
      await page.goto(`${app.url}/reviews`);
      expect(await page.getByTestId("no-seats").count()).toBe(1);
      await check(page, "reviews-no-seats");
    } finally {
      await context.close();
    }

    // The second reviewer accepts through the same functions as the tools.
    const { seats } = await pickReview(services, viewerOf(second.principal), { limit: 10 }, app.url);
    const claim = await claimReview(services, second.id, {
      review_process_id: seats[0]!.review_process_id,
      node_id: seats[0]!.node_id,
    });
    await submitReviewResponse(services, second.id, {
      assignment_id: claim.id,
      response: { verdict: "accept" },
      rationale_md: "Checked every clause.",
      citations: [],
    });
    await settled(async () => {
      const [run] = await db.sql<
        { status: string }[]
      >`select status from verification_runs where id = ${runId}`;
      return run!.status === "finished" ? true : null;
    }, "the run");

    const solver = await signedIn("sat-solver-b1");
    try {
      const page = await solver.newPage();
      await page.goto(`${app.url}/me`);
      await page.locator(`a[href="/verifications/${runId}"]`).click();
      expect(await page.getByTestId("status").textContent()).toBe("finished");
      expect(await page.getByTestId("result").textContent()).toBe("verified");
      await screenshot(page, "review-verified-run");
    } finally {
      await solver.close();
    }
  }, 90_000);

  it("2. the case page links to the review process: the nodes, their outcome and the protocol", async () => {
    // The reviewer follows the case page's link to the review process: both seats answered, accepted.
    const again = await signedIn("rev-browser");
    try {
      const page = await again.newPage();
      await page.goto(`${app.url}/reviews/mine`);
      const answered = page.getByTestId("assignments").locator("tbody tr", {
        has: page.getByTestId("assignment-status").getByText("submitted", { exact: true }),
      });
      await answered.locator("td:nth-child(2) a").click();
      await page.getByTestId("process-link").click();
      expect(new URL(page.url()).pathname).toMatch(/^\/review-processes\/rpr_/);
      expect(await page.locator("h1").textContent()).toMatch(/^Review process /);
      expect(await page.getByTestId("node-status").allTextContents()).not.toContain("open");
      expect(await page.getByTestId("protocol").textContent()).toContain('"nodes"');
      await check(page, "review-process");
    } finally {
      await again.close();
    }
  }, 60_000);

  it("3. without JavaScript: nothing left to claim after answering; a seat claimed from its case page and declined reopens; the submitter is refused", async () => {
    const context = await signedIn("rev-browser", false);
    let seat: { review_process_id: string; node_id: string };
    try {
      const page = await context.newPage();
      await page.goto(`${app.url}/reviews`);
      expect(await page.getByTestId("no-seats").count()).toBe(1);
      const bad = await page.goto(`${app.url}/reviews?problem=no-such-problem`);
      expect(bad!.status()).toBe(404);
      expect(await page.getByTestId("seats-error").textContent()).toContain("no-such-problem");
      const badStatus = await page.goto(`${app.url}/reviews/mine?status=sleeping`);
      expect(badStatus!.status()).toBe(400);
      expect(await page.getByTestId("error").textContent()).toContain("status: choose one of");

      // A second submission opens two new seats; claim one from its case page, then decline it.
      await submit();
      seat = await settled(async () => {
        const { seats } = await pickReview(services, viewerOf(reviewer.principal), { limit: 10 }, app.url);
        return seats[0] ?? null;
      }, "a second review seat");
      await page.goto(`${app.url}/reviews/${seat.review_process_id}/nodes/${seat.node_id}`);
      await page.getByTestId("claim").click();
      expect(new URL(page.url()).pathname).toMatch(/^\/review-assignments\/ras_/);
      await page.getByTestId("decline").click();
      expect(new URL(page.url()).pathname).toBe("/reviews/mine");
      expect(await page.getByTestId("notice").textContent()).toContain("Seat declined");
      expect(await page.getByTestId("assignment-status").allTextContents()).toEqual([
        "declined",
        "submitted",
      ]);
      await page.getByRole("link", { name: "Open seats" }).click();
      expect(await page.getByTestId("seats").getByTestId("open-seats").allTextContents()).toEqual(["2"]);
    } finally {
      await context.close();
    }

    // The submitter may not read, let alone claim, a seat on their own submission: a page says why.
    const solver = await signedIn("sat-solver-b1", false);
    try {
      const page = await solver.newPage();
      const answer = await page.goto(`${app.url}/reviews/${seat.review_process_id}/nodes/${seat.node_id}`);
      expect(answer!.status()).toBe(403);
      expect(await page.getByTestId("error").getAttribute("data-code")).toBe("conflict_of_interest");
      await page.goto(`${app.url}/reviews`);
      expect(await page.getByTestId("no-seats").count()).toBe(1);
    } finally {
      await solver.close();
    }
  });
});

async function settled<T>(probe: () => Promise<T | null>, what: string): Promise<T> {
  const until = Date.now() + 60_000;
  for (;;) {
    const value = await probe();
    if (value !== null) return value;
    if (Date.now() > until) throw new Error(`${what} did not settle`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
