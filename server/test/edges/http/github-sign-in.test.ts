import { SignupMode } from "@svc/schemas";
import type { Browser, BrowserContext } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser } from "../../../../test/support/browser.ts";
import { type FakeGitHubOAuth, startFakeGitHubOAuth } from "../../../../test/support/fake-github-oauth.ts";
import type { GitHubSignInSettings } from "../../../src/core/services/github-sign-in-settings.ts";
import { githubSignInFromEnv } from "../../../src/core/services/github-sign-in-settings.ts";
import { handleFromLogin, inviteGitHubLogin } from "../../../src/users/github-account.ts";
import { addUser } from "../../../src/users/index.ts";
import { describeWithBrowser } from "../../support/describe-with-browser.ts";
import { useTestDatabase } from "../../support/test-database.ts";
import { testServices } from "../../support/test-services.ts";
import { type RunningApp, startApp } from "../mcp/support/start-app.ts";

/**
 * Sign in with GitHub against a local server that speaks GitHub's OAuth web flow and `GET /user`
 * (test/support/fake-github-oauth.ts): in Chromium for the flows a person goes through, over
 * plain HTTP for the refusals.
 */

describeWithBrowser("Sign in with GitHub", () => {
  const db = useTestDatabase();
  let github: FakeGitHubOAuth;
  let browser: Browser;
  const apps: RunningApp[] = [];
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    github = await startFakeGitHubOAuth();
    browser = await launchBrowser();
  });
  afterEach(async () => {
    for (const context of contexts.splice(0)) await context.close();
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    await browser?.close();
    await github?.close();
  });

  const settings = (
    signup: SignupMode,
    overrides: Partial<GitHubSignInSettings> = {},
  ): GitHubSignInSettings => ({
    clientId: github.clientId,
    clientSecret: github.clientSecret,
    webUrl: github.url,
    apiUrl: github.url,
    signup,
    ...overrides,
  });
  const serve = async (githubSignIn: GitHubSignInSettings | undefined): Promise<RunningApp> => {
    const app = await startApp({ ...testServices(db.sql), githubSignIn });
    apps.push(app);
    return app;
  };
  const newPage = async () => {
    const context = await browser.newContext();
    contexts.push(context);
    return context.newPage();
  };
  const userByGitHubId = async (id: number) =>
    (
      await db.sql<{ id: string; handle: string; github_login: string }[]>`
      select id, handle, github_login from users where github_user_id = ${id}`
    )[0];

  it("open sign-up: a new GitHub user joins, lands where they were going, and stays the same user after a rename", async () => {
    const app = await serve(settings(SignupMode.open));
    github.signInAs({ id: 583231, login: "Octo-Cat" });
    const page = await newPage();
    await page.goto(`${app.url}/settings`);
    expect(new URL(page.url()).pathname).toBe("/sign-in");
    await page.getByTestId("sign-in-with-github").click();
    await page.waitForURL((url) => url.pathname === "/settings");
    expect(await page.getByTestId("handle").innerText()).toBe("octo-cat");
    const joined = await userByGitHubId(583231);
    expect(joined).toMatchObject({ handle: "octo-cat", github_login: "Octo-Cat" });

    // The GitHub user renames their login; the link is the numeric id, so they are the same user.
    github.signInAs({ id: 583231, login: "octo-renamed" });
    const again = await newPage();
    await again.goto(`${app.url}/sign-in`);
    await again.getByTestId("sign-in-with-github").click();
    await again.waitForURL((url) => url.pathname === "/settings");
    expect(await again.getByTestId("handle").innerText()).toBe("octo-cat");
    expect(await userByGitHubId(583231)).toMatchObject({ id: joined!.id, github_login: "octo-renamed" });

    // Someone else whose login makes the same handle gets a distinct one.
    github.signInAs({ id: 9001, login: "octo--cat" });
    const third = await newPage();
    await third.goto(`${app.url}/sign-in`);
    await third.getByTestId("sign-in-with-github").click();
    await third.waitForURL((url) => url.pathname === "/settings");
    expect(await third.getByTestId("handle").innerText()).toBe("octo-cat-2");
  });

  it("invite sign-up: an uninvited GitHub user is refused; an invited one is linked by id", async () => {
    const app = await serve(settings(SignupMode.invite));
    github.signInAs({ id: 4242, login: "grace" });
    const refused = await newPage();
    await refused.goto(`${app.url}/sign-in`);
    await refused.getByTestId("sign-in-with-github").click();
    await refused.waitForURL((url) => url.pathname === "/sign-in/github/callback");
    expect(await refused.getByTestId("error-code").innerText()).toBe("signup_closed");
    expect(await refused.getByTestId("error-message").innerText()).toContain(
      "svc-server user add <handle> --github grace",
    );
    expect(await userByGitHubId(4242)).toBeUndefined();

    const hopper = await addUser(db.sql, { handle: "hopper" });
    await inviteGitHubLogin(db.sql, hopper.id, "Grace");
    const invited = await newPage();
    await invited.goto(`${app.url}/sign-in?return_to=${encodeURIComponent("/settings")}`);
    await invited.getByTestId("sign-in-with-github").click();
    await invited.waitForURL((url) => url.pathname === "/settings");
    expect(await invited.getByTestId("handle").innerText()).toBe("hopper");
    expect(await userByGitHubId(4242)).toMatchObject({ id: hopper.id, github_login: "grace" });
  });

  it("refuses a declined authorization, a reused or foreign state and a code GitHub rejects, with github_sign_in_failed or csrf_failed", async () => {
    const app = await serve(settings(SignupMode.open));
    github.signInAs({ id: 77, login: "ada" });
    const cookieJar = new Map<string, string>();
    const get = async (url: string, jar = cookieJar) => {
      const response = await fetch(url, {
        redirect: "manual",
        headers: { accept: "application/json", cookie: [...jar].map(([k, v]) => `${k}=${v}`).join("; ") },
      });
      for (const header of response.headers.getSetCookie()) {
        const [pair] = header.split(";");
        const [name, value] = pair!.split("=");
        jar.set(name!, value!);
      }
      return response;
    };
    /** Starts a sign-in and follows GitHub's redirect; returns the callback URL GitHub sent back. */
    const startAndAuthorize = async (jar = cookieJar) => {
      const start = await get(`${app.url}/sign-in/github`, jar);
      expect(start.status).toBe(303);
      const atGitHub = await fetch(start.headers.get("location")!, { redirect: "manual" });
      expect(atGitHub.status).toBe(302);
      return atGitHub.headers.get("location")!;
    };
    const errorOf = async (response: Response) =>
      ((await response.json()) as { error: { code: string } }).error.code;

    // The person declines on GitHub.
    github.declineNext();
    const declined = await get(await startAndAuthorize());
    expect(declined.status).toBe(400);
    expect(await errorOf(declined)).toBe("github_sign_in_failed");

    // A callback whose state was issued to another browser.
    const otherJar = new Map<string, string>();
    const foreign = await get(await startAndAuthorize(otherJar));
    expect(foreign.status).toBe(403);
    expect(await errorOf(foreign)).toBe("csrf_failed");

    // A good callback works once; the same state (and code) again is refused.
    const callback = await startAndAuthorize();
    expect((await get(callback)).status).toBe(303);
    const replayed = await get(callback);
    expect(replayed.status).toBe(400);
    expect(await errorOf(replayed)).toBe("github_sign_in_failed");

    // A code GitHub does not know (its answer is 200 with `error`), with a fresh state.
    const tampered = new URL(await startAndAuthorize());
    tampered.searchParams.set("code", "0123456789abcdef0123");
    const rejected = await get(tampered.toString());
    expect(rejected.status).toBe(400);
    expect(await errorOf(rejected)).toBe("github_sign_in_failed");

    // No state at all.
    const stateless = await get(`${app.url}/sign-in/github/callback?code=abc`);
    expect(await errorOf(stateless)).toBe("github_sign_in_failed");
  });

  it("answers github_sign_in_failed, not a 5xx, when GitHub cannot be reached or the client secret is wrong", async () => {
    const unreachable = await serve(
      settings(SignupMode.open, { apiUrl: "http://127.0.0.1:9", webUrl: github.url }),
    );
    const wrongSecret = await serve(settings(SignupMode.open, { clientSecret: "not-the-secret" }));
    for (const app of [unreachable, wrongSecret]) {
      const page = await newPage();
      await page.goto(`${app.url}/sign-in`);
      await page.getByTestId("sign-in-with-github").click();
      await page.waitForURL((url) => url.pathname === "/sign-in/github/callback");
      expect(await page.getByTestId("error-code").innerText()).toBe("github_sign_in_failed");
    }
  });

  it("offers GitHub only when configured", async () => {
    const app = await serve(undefined);
    const page = await newPage();
    await page.goto(`${app.url}/sign-in`);
    expect(await page.getByTestId("sign-in-with-github").count()).toBe(0);
    const start = await fetch(`${app.url}/sign-in/github`, {
      headers: { accept: "application/json" },
      redirect: "manual",
    });
    expect(start.status).toBe(404);
  });
});

describe("Sign in with GitHub's settings and handles", () => {
  it("reads the environment, refusing half or malformed settings by name", () => {
    expect(githubSignInFromEnv({})).toBeUndefined();
    expect(githubSignInFromEnv({ SVC_GITHUB_CLIENT_ID: "id", SVC_GITHUB_CLIENT_SECRET: "s" })).toEqual({
      clientId: "id",
      clientSecret: "s",
      webUrl: "https://github.com",
      apiUrl: "https://api.github.com",
      signup: "invite",
    });
    expect(() => githubSignInFromEnv({ SVC_GITHUB_CLIENT_ID: "id" })).toThrow(/SVC_GITHUB_CLIENT_SECRET/);
    expect(() => githubSignInFromEnv({ SVC_GITHUB_CLIENT_SECRET: "s" })).toThrow(/SVC_GITHUB_CLIENT_ID/);
    expect(() =>
      githubSignInFromEnv({
        SVC_GITHUB_CLIENT_ID: "id",
        SVC_GITHUB_CLIENT_SECRET: "s",
        SVC_SIGNUP: "anyone",
      }),
    ).toThrow(/SVC_SIGNUP is "anyone": use open/);
    expect(() =>
      githubSignInFromEnv({
        SVC_GITHUB_CLIENT_ID: "id",
        SVC_GITHUB_CLIENT_SECRET: "s",
        SVC_GITHUB_URL: "ftp://x",
      }),
    ).toThrow(/SVC_GITHUB_URL/);
  });

  it("derives a valid handle from any GitHub login", () => {
    expect(handleFromLogin("Octo-Cat")).toBe("octo-cat");
    expect(handleFromLogin("a--b-")).toBe("a-b");
    expect(handleFromLogin("---")).toBe("user");
    expect(handleFromLogin("x".repeat(39))).toBe("x".repeat(39));
  });
});
