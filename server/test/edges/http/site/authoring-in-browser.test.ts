import { sha256 } from "@svc/app";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { launchBrowser } from "../../../../../test/support/browser.ts";
import { requestAuthoringUpload } from "../../../../src/authoring/request-authoring-upload.ts";
import { validateAuthoringUpload } from "../../../../src/authoring/validate-authoring-upload.ts";
import { buildApp } from "../../../../src/edges/cli/build-app.ts";
import {
  editJson,
  fixturePackage,
  putUpload,
  zipFiles,
} from "../../../authoring/support/authoring-harness.ts";
import { describeWithBrowser } from "../../../support/describe-with-browser.ts";
import {
  contractDocument,
  type SeededUser,
  seedContract,
  seedImplementation,
  seedProblem,
  seedProtocol,
  seedUser,
} from "../../../support/seed-records.ts";
import { signInInBrowser } from "../../../support/sign-in-in-browser.ts";
import { useTestDatabase } from "../../../support/test-database.ts";
import { builtinsOnly, testServices } from "../../../support/test-services.ts";
import { type RunningApp, startApp } from "../../mcp/support/start-app.ts";
import { expectAccessible, screenshot } from "./site-support.ts";

/**
 * The authoring pages in Chromium (issue 16 test 2 and issue 19 item 1): "My work" moves work
 * between private, unlisted and listed under the snapshot guard, archives it, yanks an
 * implementation and a protocol with a reason, and an upload's page shows its plan and
 * reconciliation and publishes it. Refusals show inline and change nothing.
 */
describeWithBrowser("the authoring pages in a real browser", () => {
  const db = useTestDatabase();
  let app: RunningApp;
  let browser: Browser;
  let ada: SeededUser;
  let implementationId: string;
  let protocolId: string;
  let uploadId: string;

  beforeAll(async () => {
    const services = testServices(db.sql, { sandbox: builtinsOnly() });
    ada = await seedUser(db.sql, "ada", { capabilities: ["author", "trusted_author"] });
    await seedUser(db.sql, "bob", { capabilities: ["author"] });
    await seedUser(db.sql, "root", { admin: true });
    await seedProblem(services, { owner: ada.id, slug: "moving-sat", title: "Moving satisfiability" });
    await seedProblem(services, { owner: ada.id, slug: "stale-sat", title: "Stale satisfiability" });
    await seedProblem(services, { owner: ada.id, slug: "old-sat", title: "Old satisfiability" });
    const contractId = await seedContract(db.sql, ada.id, contractDocument());
    implementationId = await seedImplementation(db.sql, { contractId, stageKey: "check", author: ada.id });
    protocolId = await seedProtocol(db.sql, ada.id, "two-readers", { title: "Two readers" });
    // An upload validated the way `svc upload` leaves it: requested, PUT, validated.
    const bytes = await zipFiles(fixturePackage("valid-builtin-sat"));
    const requested = await requestAuthoringUpload(services, ada.principal, {
      size_bytes: bytes.byteLength,
      content_hash: sha256(bytes),
    });
    const uploader = buildApp(services);
    expect((await putUpload(uploader, requested.upload_url, bytes)).statusCode).toBe(200);
    await uploader.close();
    await validateAuthoringUpload(services, ada.principal, { upload_id: requested.upload_id });
    uploadId = requested.upload_id;
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
  const row = (page: Page, slug: string) => page.locator(`tr[data-work="${slug}"]`);
  const setVisibility = async (page: Page, slug: string, visibility: string) => {
    await row(page, slug).getByLabel(`Visibility of problem ${slug}`).selectOption(visibility);
    await row(page, slug).getByTestId("set-visibility").click();
  };
  const visibilityOf = async (slug: string) =>
    (await db.sql<{ visibility: string }[]>`select visibility from problems where slug = ${slug}`)[0]!
      .visibility;
  const exploreSlugs = async (): Promise<string> => {
    const response = await fetch(`${app.url}/?q=satisfiability`);
    return await response.text();
  };

  it("1. a visitor who is not signed in is sent to sign in and back", async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${app.url}/work`);
      expect(new URL(page.url()).pathname).toBe("/sign-in");
      expect(new URL(page.url()).searchParams.get("return_to")).toBe("/work");
    } finally {
      await context.close();
    }
  });

  it("2. an author moves work from private to unlisted to listed and sees it on Explore", async () => {
    const context = await signedIn("ada");
    try {
      const page = await context.newPage();
      await page.goto(`${app.url}/`);
      await page.getByRole("link", { name: "My authoring" }).click();
      expect(new URL(page.url()).pathname).toBe("/work");
      expect(await row(page, "moving-sat").getByTestId("visibility").textContent()).toBe("private");
      await expectAccessible(page);
      await screenshot(page, "work-my-work");
      expect(await exploreSlugs()).not.toContain("moving-sat");

      // 1. Private to unlisted: readable by name, still not on Explore.
      await setVisibility(page, "moving-sat", "unlisted");
      expect(await page.getByTestId("notice").textContent()).toBe("Visibility changed.");
      expect(await row(page, "moving-sat").getByTestId("visibility").textContent()).toBe("unlisted");
      expect(await exploreSlugs()).not.toContain("moving-sat");
      expect((await fetch(`${app.url}/problems/moving-sat`)).status).toBe(200);

      // 2. Unlisted to listed: on Explore for everyone.
      await setVisibility(page, "moving-sat", "listed");
      expect(await row(page, "moving-sat").getByTestId("visibility").textContent()).toBe("listed");
      expect(await exploreSlugs()).toContain("moving-sat");
      await page.goto(`${app.url}/?q=moving`);
      expect(await page.locator('a[href="/problems/moving-sat"]').count()).toBeGreaterThan(0);
    } finally {
      await context.close();
    }
  });

  it("3. a visibility change from a stale page is refused inline and changes nothing", async () => {
    const context = await signedIn("ada");
    try {
      const stale = await context.newPage();
      await stale.goto(`${app.url}/work`);
      const fresh = await context.newPage();
      await fresh.goto(`${app.url}/work`);
      await setVisibility(fresh, "stale-sat", "unlisted");
      expect(await visibilityOf("stale-sat")).toBe("unlisted");

      await setVisibility(stale, "stale-sat", "listed");
      const refusal = row(stale, "stale-sat").getByTestId("refusal");
      expect(await refusal.getAttribute("data-code")).toBe("conflict");
      expect(await refusal.textContent()).toContain("expected_snapshot is stale");
      expect(await visibilityOf("stale-sat")).toBe("unlisted");
      // The re-rendered page holds the current snapshot: the same change now goes through.
      expect(await row(stale, "stale-sat").getByTestId("visibility").textContent()).toBe("unlisted");
      await expectAccessible(stale);
      await screenshot(stale, "work-stale-snapshot");
      await setVisibility(stale, "stale-sat", "listed");
      expect(await visibilityOf("stale-sat")).toBe("listed");
    } finally {
      await context.close();
    }
  });

  it("4. a user who does not own the work is told not_found and nothing changes", async () => {
    const context = await signedIn("bob");
    try {
      const page = await context.newPage();
      await page.goto(`${app.url}/work`);
      expect(await page.getByTestId("no-problems").count()).toBe(1);
      // bob has nothing to act on, so he takes his CSRF token from another page's form.
      const token = /name="_csrf" value="([^"]+)"/.exec(
        await (await page.request.get(`${app.url}/settings`)).text(),
      );
      const response = await page.request.post(`${app.url}/work/archive`, {
        form: { _csrf: token![1]!, kind: "problem", work: "old-sat" },
        maxRedirects: 0,
      });
      expect(response.status()).toBe(404);
      expect(await response.text()).toContain('data-code="not_found"');
      const yank = await page.request.post(`${app.url}/work/review-protocols/${protocolId}/yank`, {
        form: { _csrf: token![1]!, reason_md: "not mine" },
        maxRedirects: 0,
      });
      expect(yank.status()).toBe(404);
      expect(await yank.text()).toContain('data-code="not_found"');
      const [problem] = await db.sql<
        { status: string }[]
      >`select status from problems where slug = 'old-sat'`;
      expect(problem!.status).not.toBe("archived");
    } finally {
      await context.close();
    }
  });

  it("5. archives a problem: it shows archived and loses its Archive button", async () => {
    const context = await signedIn("ada");
    try {
      const page = await context.newPage();
      await page.goto(`${app.url}/work`);
      await row(page, "old-sat").getByTestId("archive").click();
      expect(await page.getByTestId("notice").textContent()).toContain("Archived");
      expect(await row(page, "old-sat").getByTestId("status").textContent()).toContain("archived");
      expect(await row(page, "old-sat").getByTestId("archive").count()).toBe(0);
    } finally {
      await context.close();
    }
  });

  it("6. yanks an implementation and a protocol with a reason, once; a missing reason is refused inline", async () => {
    const context = await signedIn("ada");
    try {
      const page = await context.newPage();
      await page.goto(`${app.url}/work`);
      const implementation = page.locator(`tr[data-implementation="${implementationId}"]`);
      // 1. Without a reason (the browser's `required` bypassed): refused beside it, nothing written.
      const csrf = await page.locator('input[name="_csrf"]').first().getAttribute("value");
      const empty = await page.request.post(`${app.url}/work/implementations/${implementationId}/yank`, {
        form: { _csrf: csrf!, reason_md: "" },
        maxRedirects: 0,
      });
      expect(empty.status()).toBe(400);
      expect(await empty.text()).toContain("reason_md must say why");
      // 2. With a reason: the yank record replaces the form.
      await implementation
        .getByLabel(`Reason to yank implementation ${implementationId}`)
        .fill("Leaks the answer.");
      await implementation.getByTestId("yank").click();
      expect(await page.getByTestId("notice").textContent()).toContain("Yanked");
      expect(await implementation.getByTestId("yank-record").textContent()).toContain("Leaks the answer.");
      expect(await implementation.getByTestId("yank").count()).toBe(0);
      const protocol = page.locator(`tr[data-protocol="${protocolId}"]`);
      await protocol.getByLabel("Reason to yank protocol two-readers").fill("Superseded.");
      await protocol.getByTestId("yank").click();
      expect(await protocol.getByTestId("yank-record").textContent()).toContain("Superseded.");
      const [row] = await db.sql<{ yank_reason_md: string }[]>`
        select yank_reason_md from verifier_implementations where id = ${implementationId}`;
      expect(row!.yank_reason_md).toBe("Leaks the answer.");
      // 3. Write-once: a second yank (a stale form) is refused.
      const again = await page.request.post(`${app.url}/work/implementations/${implementationId}/yank`, {
        form: { _csrf: csrf!, reason_md: "again" },
        maxRedirects: 0,
      });
      expect(again.status()).toBe(409);
      expect(await again.text()).toContain('data-code="already_yanked"');
      await expectAccessible(page);
      await screenshot(page, "work-yanked");
    } finally {
      await context.close();
    }
  });

  it("7. an upload's page shows its plan and reconciliation and publishes it", async () => {
    const context = await signedIn("ada");
    try {
      const page = await context.newPage();
      await page.goto(`${app.url}/work`);
      await page.getByRole("link", { name: uploadId }).click();
      expect(new URL(page.url()).pathname).toBe(`/work/uploads/${uploadId}`);
      expect(await page.getByTestId("upload-state").textContent()).toBe("validated");
      expect(await page.getByTestId("plan-hash").textContent()).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(await page.getByTestId("reconciliation").getByTestId("action").first().textContent()).toBe(
        "create",
      );
      expect(await page.getByTestId("plan").textContent()).toContain('"problems"');
      await expectAccessible(page);
      await screenshot(page, "work-upload");
      // Publishing does the whole publication before the page answers: more than a click's time.
      await page.getByTestId("publish").click({ timeout: 60_000 });
      expect(await page.getByTestId("upload-state").textContent()).toBe("published");
      expect(await page.getByTestId("publish-result").count()).toBe(1);
      expect(await page.getByTestId("publish").count()).toBe(0);
      // Another user's upload is not_found, as an unknown one.
      const bob = await signedIn("bob");
      const other = await bob.newPage();
      const response = await other.goto(`${app.url}/work/uploads/${uploadId}`);
      expect(response!.status()).toBe(404);
      await bob.close();
    } finally {
      await context.close();
    }
  }, 90_000);

  it("8. pages problems 50 at a time; a page that is not a whole number is refused naming the field", async () => {
    const services = testServices(db.sql);
    for (let i = 0; i < 50; i++) await seedProblem(services, { owner: ada.id, slug: `many-${i}` });
    const context = await signedIn("ada");
    try {
      const page = await context.newPage();
      await page.goto(`${app.url}/work`);
      const rows = page.getByTestId("problems").locator("tbody > tr");
      expect(await rows.count()).toBe(50);
      await page.getByTestId("next-problems").click();
      expect(new URL(page.url()).search).toBe("?page=2");
      const [owned] = await db.sql<{ count: number }[]>`
        select count(*)::int as count from problems where owner_user_id = ${ada.id}`;
      expect(owned!.count).toBeGreaterThan(50);
      expect(await rows.count()).toBe(owned!.count - 50);
      expect(await page.getByTestId("next-problems").count()).toBe(0);
      const bad = await page.goto(`${app.url}/work?page=zero`);
      expect(bad!.status()).toBe(400);
      expect(await page.getByTestId("error").getAttribute("data-code")).toBe("invalid_input");
      expect(await page.getByTestId("error").textContent()).toContain("page must be a whole number");
    } finally {
      await context.close();
    }
  }, 60_000);

  it("9. an author uploads a ZIP, publishes it and requests listing; an administrator approves it from the linked queue and grants access", async () => {
    const zip = await zipFiles(
      editJson(fixturePackage("valid-builtin-sat"), "problem.json", (problem) => {
        problem.slug = "browser-sat";
        problem.title = "Satisfiability from a browser";
      }),
    );
    const bob = await signedIn("bob");
    try {
      const page = await bob.newPage();
      await page.goto(`${app.url}/work`);
      await page
        .getByLabel("Package ZIP")
        .setInputFiles({ name: "package.zip", mimeType: "application/zip", buffer: zip });
      await page.getByTestId("upload-package").click({ timeout: 60_000 });
      await page.waitForURL(/\/work\/uploads\/aup_/);
      expect(await page.getByTestId("upload-state").textContent()).toBe("validated");
      await page.getByTestId("publish").click({ timeout: 60_000 });
      expect(await page.getByTestId("upload-state").textContent()).toBe("published");
      await page.goto(`${app.url}/work`);
      expect(await row(page, "browser-sat").getByTestId("visibility").textContent()).toBe("private");
      // Edit the details, then ask for a listing.
      await row(page, "browser-sat").getByText("Edit details").click();
      await row(page, "browser-sat").getByLabel("Summary").fill("Three variables, from the browser.");
      await row(page, "browser-sat").getByTestId("save-details").click();
      expect(await page.getByTestId("notice").textContent()).toBe("Details saved.");
      await row(page, "browser-sat").getByTestId("request-listing").click();
      expect(await page.getByTestId("notice").textContent()).toContain("Listing requested");
      await expectAccessible(page);
      await screenshot(page, "work-requested-listing");
    } finally {
      await bob.close();
    }

    const root = await signedIn("root");
    try {
      const page = await root.newPage();
      await page.goto(`${app.url}/work`);
      await page.getByTestId("admin-links").getByRole("link", { name: "Publication requests" }).click();
      const request = page.locator("tr[data-request]").filter({ hasText: "Satisfiability from a browser" });
      expect(await request.getByTestId("request-requester").textContent()).toBe("bob");
      expect(await request.getByTestId("request-plan").textContent()).toContain(
        "make problem browser-sat listed (now private)",
      );
      await expectAccessible(page);
      await screenshot(page, "publication-requests");
      await request.getByTestId("approve").click({ timeout: 60_000 });
      expect(await visibilityOf("browser-sat")).toBe("listed");

      await page.goto(`${app.url}/work`);
      await page.getByTestId("admin-links").getByRole("link", { name: "Author access" }).click();
      await page.getByLabel("Handle").fill("bob");
      await page.getByLabel("Access").selectOption("trusted_author");
      await page.getByTestId("grant-access").click();
      expect(await page.locator('tr[data-holder="bob"][data-access="trusted_author"]').count()).toBe(1);
      await expectAccessible(page);
      await page
        .locator('tr[data-holder="bob"][data-access="trusted_author"]')
        .getByTestId("revoke-access")
        .click();
      expect(await page.locator('tr[data-holder="bob"][data-access="trusted_author"]').count()).toBe(0);
      expect(await page.locator('tr[data-holder="bob"][data-access="author"]').count()).toBe(1);
    } finally {
      await root.close();
    }
    // Nobody else reaches the access page.
    const response = await fetch(`${app.url}/admin/access`, {
      headers: { accept: "text/html", authorization: `Bearer ${ada.token}` },
    });
    expect(response.status).toBe(403);
  }, 120_000);
});
