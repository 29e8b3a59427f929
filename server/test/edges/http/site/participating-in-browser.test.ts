import { hashJson } from "@svc/app";
import type { Runner } from "graphile-worker";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { launchBrowser } from "../../../../../test/support/browser.ts";
import type { Services } from "../../../../src/core/services/services.ts";
import { startWorker } from "../../../../src/edges/worker/start-worker.ts";
import { editJson, fixturePackage } from "../../../authoring/support/authoring-harness.ts";
import { sealedContract, sealing } from "../../../sealing/support/sealed-fixture.ts";
import { describeWithBrowser } from "../../../support/describe-with-browser.ts";
import { type SeededUser, seedCampaign, seedProblem, seedUser } from "../../../support/seed-records.ts";
import { signInInBrowser } from "../../../support/sign-in-in-browser.ts";
import { useTestDatabase } from "../../../support/test-database.ts";
import { testServices } from "../../../support/test-services.ts";
import { publishProblem } from "../../../verification/support/verification-harness.ts";
import { type RunningApp, startApp } from "../../mcp/support/start-app.ts";
import { expectAccessible, screenshot, seedScoredAndSealed } from "./site-support.ts";

const STATEMENT = [
  "# A small SAT instance",
  "",
  "Find $x \\in \\{0, 1\\}^3$ that satisfies every clause, that is",
  "",
  "$$",
  "\\bigwedge_{i=1}^{m} C_i(x) = 1",
  "$$",
  "",
  "| clause | literals |",
  "| :--- | ---: |",
  "| 1 | 3 |",
].join("\n");

/**
 * Taking part from the browser (issue 35), in Chromium against the real service and a real worker:
 * a participant reads a Problem whose statement has maths, submits a file and then a text answer
 * from its page, watches the run finish (the page refreshes itself), sees the verdict on the
 * problem page and /me, follows the run page's links, ends the Attempt; their row is marked on a
 * leaderboard. Hostile posts (oversize, wrong media type, no CSRF token, a foreign Origin, an
 * exhausted quota) get the site's error page naming the fix and store nothing.
 */
describeWithBrowser("taking part from the browser", () => {
  const db = useTestDatabase();
  let services: Services;
  let app: RunningApp;
  let worker: Runner;
  let browser: Browser;
  let context: BrowserContext;
  let dee: SeededUser;

  beforeAll(async () => {
    services = testServices(db.sql);
    const ada = await seedUser(db.sql, "ada", { capabilities: ["author"] });
    dee = await seedUser(db.sql, "dee");
    const bob = await seedUser(db.sql, "bob");
    const files = editJson(
      { ...fixturePackage("valid-builtin-sat"), "statement.md": STATEMENT },
      "verifier-contract.json",
      (contract) => {
        (contract.submission_requirements as Record<string, unknown>).answer_format_md =
          "One line of signed literals, as `1 -2 3`.";
      },
    );
    const sat = await publishProblem(services, ada.principal, files);
    await db.sql`update problems set visibility = 'listed' where id = ${sat.problem_id}`;
    // Conformance runs on publication; the participant's runs wait for it.
    for (let i = 0; i < 100; i++) {
      const [row] = await db.sql<{ pending: number }[]>`
        select count(*)::int as pending from verifier_implementations
        where verifier_contract_id = ${sat.verifier_contract_id} and (conformance->>'status') is distinct from 'passed'`;
      if (row!.pending === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // A scored Problem with finished runs: bob ahead of dee.
    const speed = await seedCampaign(db.sql, {
      owner: ada.id,
      slug: "speed",
      title: "Speed",
      summary: "Fast things.",
      visibility: "listed",
    });
    // dee scores twice, bob once and better; the sealed Problem allows one submission a day.
    await seedScoredAndSealed(services, ada.id, {
      campaignId: speed,
      scores: [
        [bob.id, 20],
        [dee.id, 30],
        [dee.id, 25],
      ],
      sealing: sealing({ mode: "immediate", max: 1, sealedUntil: "2099-03-01T00:00:00.000Z" }),
    });
    // A sealed Problem whose submission cutoff has passed, on the sealed Problem's Contract.
    const [{ id: closedContract }] = await db.sql<{ id: string }[]>`
      select id from verifier_contracts where content_hash = ${hashJson(sealedContract())}`;
    await seedProblem(services, {
      owner: ada.id,
      slug: "closed-sat",
      title: "Closed satisfiability",
      visibility: "listed",
      revision: {
        statement: "Satisfy the sealed instance.",
        verifierContractId: closedContract,
        bindings: [{ key: "instance", bytes: "p cnf 1 1\n1 0\n", filename: "instance.cnf" }],
        sealing: sealing({
          mode: "immediate",
          closesAt: "2020-01-01T00:00:00.000Z",
          sealedUntil: "2099-03-01T00:00:00.000Z",
        }),
      },
    });
    app = await startApp(services);
    worker = await startWorker(services, { concurrency: 1, pollInterval: 100 });
    browser = await launchBrowser();
    context = await browser.newContext({ bypassCSP: true });
    context.setDefaultTimeout(15_000);
    const page = await context.newPage();
    await signInInBrowser(page, db.sql, app.url, "dee");
    await page.close();
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await worker?.stop();
    await app?.close();
  });

  const stored = async () => {
    const [row] = await db.sql<{ attempts: number; artifacts: number; submissions: number }[]>`
      select (select count(*)::int from attempts where user_id = ${dee.id}) as attempts,
        (select count(*)::int from artifacts where user_id = ${dee.id}) as artifacts,
        (select count(*)::int from submissions where user_id = ${dee.id}) as submissions`;
    return row!;
  };

  async function waitForResult(page: Page): Promise<string> {
    // The run page reloads itself (meta refresh) while the run is queued or running.
    const until = Date.now() + 30_000;
    while ((await page.locator('meta[http-equiv="refresh"]').count()) > 0) {
      if (Date.now() > until) throw new Error(`the run at ${page.url()} did not finish`);
      await page.waitForTimeout(250);
    }
    return (await page.getByTestId("result").textContent()) ?? "";
  }

  it("1. reads maths, submits a file and a text answer, watches each run finish, and ends the attempt", async () => {
    const page = await context.newPage();
    await page.goto(`${app.url}/problems/small-sat`);
    // Maths is MathML, with the TeX's braces kept; the table keeps its right alignment.
    const statement = page.getByTestId("statement");
    expect(await statement.locator("math").count()).toBe(2);
    expect(await statement.locator('math[display="block"]').count()).toBe(1);
    expect(await statement.locator("mo", { hasText: "{" }).count()).toBe(1);
    expect(await statement.locator("td.align-right").textContent()).toBe("3");
    expect(await statement.textContent()).not.toContain("$");
    // How to submit: the role, its limits, the answer format and ready-to-copy snippets.
    const role = page.locator('[data-testid="roles"] tr[data-role="assignment"]');
    expect(await role.textContent()).toContain("text/plain");
    expect(await role.textContent()).toContain("64 KiB");
    expect(await page.getByTestId("answer-format").textContent()).toContain("signed literals");
    expect(await page.locator("#verify-snippet").inputValue()).toContain(
      "svc verify small-sat --artifact assignment=./assignment.txt",
    );
    expect(await page.getByTestId("no-submissions").count()).toBe(1);
    await expectAccessible(page);
    await screenshot(page, "participate-problem");

    // A file, on a new Attempt.
    const before = await stored();
    await page.getByLabel("File for assignment").setInputFiles({
      name: "answer.txt",
      mimeType: "text/plain",
      buffer: Buffer.from("v 1 2 -3 0\n"),
    });
    await page.getByTestId("submit").click();
    await page.waitForURL(/\/verifications\/vrn_/);
    expect(await waitForResult(page)).toBe("verified");
    await screenshot(page, "participate-run");
    expect(await stored()).toEqual({
      attempts: before.attempts + 1,
      artifacts: before.artifacts + 1,
      submissions: before.submissions + 1,
    });
    // The run page links on: problem, revision, attempt, submission.
    const related = page.getByTestId("related");
    expect(await related.getByRole("link", { name: "Problem small-sat" }).count()).toBe(1);
    expect(await page.getByRole("link", { name: "revision 1" }).count()).toBe(1);

    // A pasted text answer, continuing the same Attempt.
    await page.goto(`${app.url}/problems/small-sat`);
    expect(await page.locator("#attempt_id option:checked").textContent()).toMatch(/^continue att_/);
    await page.getByLabel("Or paste it (text/plain)").fill("v -1 2 -3 0\n");
    await page.getByTestId("submit").click();
    await page.waitForURL(/\/verifications\/vrn_/);
    expect(await waitForResult(page)).toBe("refuted");
    expect((await stored()).attempts).toBe(before.attempts + 1);

    // Both on the problem page, newest first.
    await page.goto(`${app.url}/problems/small-sat`);
    const results = page.getByTestId("your-submissions").getByTestId("your-result");
    expect(await results.allTextContents()).toEqual(["refuted", "verified"]);
    await screenshot(page, "participate-your-submissions");

    // The attempt page ends it with a summary.
    await page.getByTestId("your-submissions").locator("a[href^='/attempts/']").first().click();
    await page.getByLabel("Outcome").selectOption("solved");
    await page.getByLabel(/Summary/).fill("Found a satisfying assignment by **hand**.");
    await page.getByTestId("end-attempt").click();
    expect(await page.getByTestId("attempt-status").textContent()).toBe("ended");
    expect(await page.getByTestId("summary").locator("strong").textContent()).toBe("hand");
    await expectAccessible(page);

    // /me lists it with both runs.
    await page.goto(`${app.url}/me`);
    expect(await page.getByTestId("run-result").allTextContents()).toEqual(
      expect.arrayContaining(["verified", "refuted"]),
    );
    await page.close();
  }, 90_000);

  it("2. marks the participant's own row on the problem's and the campaign's leaderboards, and shows the best score on /me", async () => {
    const page = await context.newPage();
    await page.goto(`${app.url}/problems/fastest/leaderboard`);
    const mine = page.getByTestId("your-row");
    expect(await mine.count()).toBe(1);
    expect(await mine.locator('td[data-label="Participant"]').textContent()).toContain("dee");
    expect(await mine.locator('td[data-label="Score"]').textContent()).toBe("25");
    expect(await mine.locator('td[data-label="Entries"]').textContent()).toBe("2");
    await expectAccessible(page);
    await screenshot(page, "participate-leaderboard");

    await page.goto(`${app.url}/campaigns/speed`);
    await page.getByTestId("campaign-leaderboard-link").click();
    const standing = page.getByTestId("your-row");
    expect(await standing.locator('td[data-label="Rank"]').textContent()).toBe("2");
    expect(await standing.locator('td[data-label="fastest"]').textContent()).toBe("2");
    await expectAccessible(page);

    await page.goto(`${app.url}/me`);
    const best = page.locator('[data-testid="best-scores"] tr[data-best="fastest"]');
    expect(await best.getByTestId("best-score").textContent()).toBe("25 ms");
    expect(await best.locator('td[data-label="Rank"]').textContent()).toBe("2 of 2");
    await expectAccessible(page);
    await screenshot(page, "participate-me");
    await page.close();
  });

  /** A multipart POST from outside the page, with the browser's cookie; answered as a browser would be. */
  async function post(path: string, form: FormData, headers: Record<string, string> = {}) {
    const cookies = await context.cookies(app.url);
    const response = await fetch(`${app.url}${path}`, {
      method: "POST",
      body: form,
      headers: {
        accept: "text/html",
        cookie: cookies.map((c) => `${c.name}=${c.value}`).join("; "),
        ...headers,
      },
      redirect: "manual",
    });
    return { status: response.status, body: await response.text() };
  }

  async function csrf(): Promise<string> {
    const page = await context.newPage();
    await page.goto(`${app.url}/problems/small-sat`);
    const token = await page.locator('form[data-testid="submit-form"] input[name="_csrf"]').inputValue();
    await page.close();
    return token;
  }

  const form = (token: string | null, file: { name: string; type: string; bytes: Uint8Array }) => {
    const data = new FormData();
    if (token !== null) data.append("_csrf", token);
    data.append("attempt_id", "new");
    data.append("file:assignment", new Blob([file.bytes], { type: file.type }), file.name);
    return data;
  };

  it("3. refuses hostile posts with the site's error page naming the fix, and stores nothing", async () => {
    const token = await csrf();
    const before = await stored();
    const good = { name: "answer.txt", type: "text/plain", bytes: Buffer.from("v 1 2 -3 0\n") };

    const oversize = await post(
      "/problems/small-sat/submit",
      form(token, { ...good, bytes: Buffer.alloc(70_000, "1") }),
    );
    expect(oversize.status).toBe(413);
    expect(oversize.body).toContain('<header class="site">');
    expect(oversize.body).toContain("choose a smaller file");

    const wrongType = await post(
      "/problems/small-sat/submit",
      form(token, { name: "answer.pdf", type: "application/pdf", bytes: Buffer.from("%PDF-1.4") }),
    );
    expect(wrongType.status).toBe(422);
    expect(wrongType.body).toContain("requirements_unmet");
    expect(wrongType.body).toContain("takes text/plain");

    const noToken = await post("/problems/small-sat/submit", form(null, good));
    expect(noToken.status).toBe(403);
    expect(noToken.body).toContain("csrf_failed");
    expect(noToken.body).toContain("reload the page");

    const foreign = await post("/problems/small-sat/submit", form(token, good), {
      origin: "https://evil.example",
    });
    expect(foreign.status).toBe(403);
    expect(foreign.body).toContain("another site");

    const unknownRole = new FormData();
    unknownRole.append("_csrf", token);
    unknownRole.append("file:nope", new Blob(["x"], { type: "text/plain" }), "x.txt");
    const unknown = await post("/problems/small-sat/submit", unknownRole);
    expect(unknown.status).toBe(400);
    expect(unknown.body).toContain("roles: &quot;assignment&quot;");

    expect(await stored()).toEqual(before);

    // The sealed quota: one a day. The first is taken from the page; then the page says so, and a post is refused.
    const page = await context.newPage();
    await page.goto(`${app.url}/problems/sealed-sat`);
    expect(await page.getByTestId("submit-allowance").textContent()).toContain("you have 1 left");
    await page.getByLabel("File for assignment").setInputFiles({
      name: "a.txt",
      mimeType: "text/plain",
      buffer: Buffer.from("1 0\n"),
    });
    await page.getByTestId("submit").click();
    await page.waitForURL(/\/verifications\/vrn_/);
    await page.goto(`${app.url}/problems/sealed-sat`);
    expect(await page.getByTestId("submit-closed").textContent()).toContain("next slot frees up");
    const afterFirst = await stored();
    const exhausted = await post("/problems/sealed-sat/submit", form(token, good));
    expect(exhausted.status).toBe(429);
    expect(exhausted.body).toContain("submission_quota_exhausted");
    expect(await stored()).toEqual(afterFirst);
    await page.close();
  }, 60_000);
  it("4. past the sealed cutoff the page says so instead of a form, and a post is refused with nothing stored", async () => {
    const page = await context.newPage();
    await page.goto(`${app.url}/problems/closed-sat`);
    expect(await page.getByTestId("submit-closed").textContent()).toContain(
      "closed at 2020-01-01T00:00:00.000Z",
    );
    expect(await page.getByTestId("submit").count()).toBe(0);
    await page.close();
    const before = await stored();
    const closed = await post(
      "/problems/closed-sat/submit",
      form(await csrf(), { name: "a.txt", type: "text/plain", bytes: Buffer.from("1 0\n") }),
    );
    expect(closed.status).toBe(409);
    expect(closed.body).toContain('<header class="site">');
    expect(closed.body).toContain("submissions_closed");
    expect(await stored()).toEqual(before);
  }, 60_000);
});
