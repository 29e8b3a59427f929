import type { Browser, BrowserContext } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { launchBrowser } from "../../../../../test/support/browser.ts";
import { saveWorkDraft } from "../../../../src/drafts/save-work-draft.ts";
import { uniqueCampaignFiles } from "../../../drafts/draft-harness.ts";
import { describeWithBrowser } from "../../../support/describe-with-browser.ts";
import { type SeededUser, seedUser } from "../../../support/seed-records.ts";
import { signInInBrowser } from "../../../support/sign-in-in-browser.ts";
import { useTestDatabase } from "../../../support/test-database.ts";
import { scriptRuntimesBound, testServices } from "../../../support/test-services.ts";
import { type RunningApp, startApp } from "../../mcp/support/start-app.ts";
import { expectAccessible, screenshot } from "./site-support.ts";

/**
 * The drafts and publication-request pages in Chromium (issue 16): an author finds a draft from
 * "My work", reads its status, files and history, requests its publication and withdraws a
 * request through the forms; an administrator rejects a request with a reason and the author sees
 * it; another user's draft is not_found and a non-administrator cannot list requests.
 */
describeWithBrowser("the drafts and publication-request pages in a real browser", () => {
  const db = useTestDatabase();
  let app: RunningApp;
  let browser: Browser;
  let ada: SeededUser;
  let draftId: string;

  beforeAll(async () => {
    const services = testServices(db.sql, { sandbox: scriptRuntimesBound() });
    ada = await seedUser(db.sql, "ada", { capabilities: ["author"] });
    await seedUser(db.sql, "bob", { capabilities: ["author"] });
    await seedUser(db.sql, "root", { admin: true });
    const saved = await saveWorkDraft(
      services,
      { userId: ada.id, isAdministrator: false },
      { title: "Integer <b>roots</b>", files: uniqueCampaignFiles("browser") },
    );
    draftId = saved.draft.id;
    app = await startApp(services);
    browser = await launchBrowser();
  }, 60_000);
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
  const requestStatuses = async () =>
    (
      await db.sql<{ status: string }[]>`
        select status from publication_requests where draft_id = ${draftId} order by created_at, id`
    ).map((r) => r.status);

  it("1. an author reads a draft from My work and requests its publication", async () => {
    const context = await signedIn("ada");
    try {
      const page = await context.newPage();
      await page.goto(`${app.url}/work`);
      await page.getByRole("link", { name: "drafts" }).click();
      expect(new URL(page.url()).pathname).toBe("/work/drafts");
      const row = page.locator(`tr[data-draft="${draftId}"]`);
      expect(await row.getByTestId("status").textContent()).toBe("editing");
      await expectAccessible(page);
      await screenshot(page, "work-drafts");

      await row.getByRole("link", { name: "Integer <b>roots</b>" }).click();
      expect(new URL(page.url()).pathname).toBe(`/work/drafts/${draftId}`);
      // The author's markup in the title is text, not an element.
      expect(await page.locator("h1 b").count()).toBe(0);
      expect(await page.getByTestId("draft-status").textContent()).toBe("editing");
      expect(await page.getByTestId("draft-version").textContent()).toBe("1");
      expect(await page.getByTestId("files").textContent()).toContain("campaign.json");
      expect(await page.getByTestId("history").getByTestId("action").first().textContent()).toBe(
        "save_draft",
      );
      expect(await page.getByTestId("no-requests").count()).toBe(1);
      await expectAccessible(page);
      await screenshot(page, "work-draft");

      // Write a file from the page: a new version carrying every other file unchanged.
      const before = await db.sql<{ files: Array<{ path: string; content_hash: string }> }[]>`
        select files from work_drafts where id = ${draftId}`;
      await page.getByText("Write a file").click();
      await page.getByLabel("Path in the package").fill("NOTES.md");
      await page.getByLabel(/^Content/).fill("# Notes\n\nWritten in a browser.\n");
      await page.getByTestId("save-file").click();
      expect(await page.getByTestId("notice").textContent()).toContain("Saved");
      expect(await page.getByTestId("draft-version").textContent()).toBe("2");
      expect(await page.getByTestId("files").textContent()).toContain("NOTES.md");
      const [after] = await db.sql<{ files: Array<{ path: string; content_hash: string }> }[]>`
        select files from work_drafts where id = ${draftId}`;
      expect(after!.files.filter((f) => f.path !== "NOTES.md")).toEqual(before[0]!.files);

      await page.getByLabel("Visibility to ask for").selectOption("unlisted");
      await page.getByLabel("Note for the reviewer (optional)").fill("Ready for review.");
      await page.getByTestId("request-publication").click();
      expect(await page.getByTestId("notice").textContent()).toContain("Publication requested");
      expect(await page.getByTestId("request-status").first().textContent()).toBe("pending");
      // One pending request per draft: the form is gone while this one is pending.
      expect(await page.getByTestId("request-publication").count()).toBe(0);
      expect(await requestStatuses()).toEqual(["pending"]);
      await expectAccessible(page);
      await screenshot(page, "work-draft-requested");
    } finally {
      await context.close();
    }
  });

  it("2. another user gets not_found for the draft and cannot list publication requests", async () => {
    const context = await signedIn("bob");
    try {
      const page = await context.newPage();
      const response = await page.goto(`${app.url}/work/drafts/${draftId}`);
      expect(response!.status()).toBe(404);
      expect(await page.getByTestId("error").getAttribute("data-code")).toBe("not_found");
      await page.goto(`${app.url}/work/drafts`);
      expect(await page.getByTestId("no-drafts").count()).toBe(1);
      const requests = await page.goto(`${app.url}/work/publication-requests`);
      expect(requests!.status()).toBe(403);
      expect(await page.getByTestId("error").getAttribute("data-code")).toBe("forbidden");
    } finally {
      await context.close();
    }
  });

  it("3. an administrator rejects the request with a reason; the author sees it and withdraws a new one", async () => {
    const admin = await signedIn("root");
    try {
      const page = await admin.newPage();
      await page.goto(`${app.url}/work/publication-requests`);
      const [pending] = await db.sql<{ id: string }[]>`
        select id from publication_requests where draft_id = ${draftId} and status = 'pending'`;
      const row = page.locator(`tr[data-request="${pending!.id}"]`);
      expect(await row.textContent()).toContain("Ready for review.");
      await expectAccessible(page);
      await screenshot(page, "work-publication-requests");
      // A rejection without a reason is refused and changes nothing.
      await row.getByTestId("reject").click();
      expect(await page.getByTestId("error").getAttribute("data-code")).toBe("invalid_input");
      expect(await requestStatuses()).toEqual(["pending"]);
      await page.goto(`${app.url}/work/publication-requests`);
      await row.getByLabel(`Reason for request ${pending!.id}`).fill("Add a harder instance.");
      await row.getByTestId("reject").click();
      expect(await page.getByTestId("notice").textContent()).toContain("Rejected");
      expect(await page.getByTestId("no-requests").count()).toBe(1);
    } finally {
      await admin.close();
    }
    const context = await signedIn("ada");
    try {
      const page = await context.newPage();
      await page.goto(`${app.url}/work/drafts/${draftId}`);
      expect(await page.getByTestId("request-status").first().textContent()).toContain("rejected");
      expect(await page.getByTestId("request-reason").first().textContent()).toBe("Add a harder instance.");
      await page.getByTestId("request-publication").click();
      await page.getByTestId("withdraw").click();
      expect(await page.getByTestId("notice").textContent()).toBe("Request withdrawn.");
      expect(await requestStatuses()).toEqual(["rejected", "withdrawn"]);
      expect(await page.getByTestId("withdraw").count()).toBe(0);
      await expectAccessible(page);
      await screenshot(page, "work-draft-withdrawn");
    } finally {
      await context.close();
    }
  });

  it("4. the author prepares and publishes the draft through its forms; another user's post is not_found", async () => {
    const bob = await signedIn("bob");
    try {
      const page = await bob.newPage();
      await page.goto(`${app.url}/settings`);
      const csrf = await page.locator('input[name="_csrf"]').first().getAttribute("value");
      const refused = await page.request.post(`${app.url}/work/drafts/${draftId}/prepare`, {
        form: { _csrf: csrf!, expected_version: "1" },
        maxRedirects: 0,
      });
      expect(refused.status()).toBe(404);
      expect(await refused.text()).toContain('data-code="not_found"');
    } finally {
      await bob.close();
    }
    const context = await signedIn("ada");
    try {
      const page = await context.newPage();
      await page.goto(`${app.url}/work/drafts/${draftId}`);
      // Preparing runs the upload's whole validation and publication: more than a click's time.
      await page.getByTestId("prepare").click({ timeout: 60_000 });
      expect(await page.getByTestId("notice").textContent()).toContain("Prepared");
      expect(await page.getByTestId("draft-status").textContent()).toBe("prepared");
      expect(await page.getByTestId("prepare").count()).toBe(0);
      await page.getByLabel("Publish as").selectOption("unlisted");
      await page.getByTestId("publish").click({ timeout: 60_000 });
      expect(await page.getByTestId("notice").textContent()).toContain("Published");
      expect(await page.getByTestId("draft-status").textContent()).toBe("published");
      const [draft] = await db.sql<{ visibility: string }[]>`
        select visibility from work_drafts where id = ${draftId}`;
      expect(draft!.visibility).toBe("unlisted");
      await expectAccessible(page);
      await screenshot(page, "work-draft-published");
    } finally {
      await context.close();
    }
  }, 120_000);
});
