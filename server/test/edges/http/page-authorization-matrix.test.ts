import { afterAll, beforeAll, expect, it } from "vitest";
import { issueSignInLink } from "../../../src/sessions/sign-in-links.ts";
import { addUser, issueToken } from "../../../src/users/index.ts";
import { describeWithDatabase, useTestDatabase } from "../../support/test-database.ts";
import { testServices } from "../../support/test-services.ts";
import { type RunningApp, startApp } from "../mcp/support/start-app.ts";

/**
 * The authorization matrix of the web pages and their forms, over real HTTP: for every page, what
 * an anonymous browser, an anonymous program (asking for JSON), a bearer token and a signed-in
 * session get; for every form POST, that it needs the session's CSRF token. A page whose record
 * does not exist answers 404 once the caller passed authorization, so unknown ids suffice here.
 */
type Credential = "anonymous browser" | "anonymous program" | "bearer" | "session";
type Outcome = "sign-in redirect" | "401" | "passes" | "refused (bearer)";

interface PageRow {
  path: string;
  /** What each credential gets: `passes` is any answer past authorization (200, 303 onward or 404). */
  expect: Record<Credential, Outcome>;
  /** The page also needs a role the matrix's user lacks: `passes` is then its 403 `forbidden`. */
  needsRole?: true;
}

const SIGNED_IN_ONLY: Record<Credential, Outcome> = {
  "anonymous browser": "sign-in redirect",
  "anonymous program": "401",
  bearer: "refused (bearer)",
  session: "passes",
};
const BEARER_OR_SESSION: Record<Credential, Outcome> = {
  "anonymous browser": "sign-in redirect",
  "anonymous program": "401",
  bearer: "passes",
  session: "passes",
};
const PUBLIC: Record<Credential, Outcome> = {
  "anonymous browser": "passes",
  "anonymous program": "passes",
  bearer: "passes",
  session: "passes",
};

const PAGES: PageRow[] = [
  { path: "/settings", expect: SIGNED_IN_ONLY },
  { path: "/verifications/vrn_0000000000000000", expect: BEARER_OR_SESSION },
  { path: "/verifications/vrn_0000000000000000/stages/check/log", expect: BEARER_OR_SESSION },
  { path: "/verifications/vrn_0000000000000000/stages/check/evidence", expect: BEARER_OR_SESSION },
  { path: "/verifications/vrn_0000000000000000/stages/check/evidence/a/b.txt", expect: BEARER_OR_SESSION },
  { path: "/reviews/rvp_0000000000000000/nodes/review", expect: BEARER_OR_SESSION },
  { path: "/review-assignments/rva_0000000000000000", expect: BEARER_OR_SESSION },
  { path: "/review-processes/rpr_0000000000000000", expect: BEARER_OR_SESSION },
  { path: "/work/audit", expect: BEARER_OR_SESSION },
  { path: "/work", expect: BEARER_OR_SESSION },
  { path: "/work/uploads/aup_0000000000000000", expect: BEARER_OR_SESSION },
  { path: "/work/drafts", expect: BEARER_OR_SESSION },
  { path: "/work/drafts/wdr_0000000000000000", expect: BEARER_OR_SESSION },
  { path: "/work/publication-requests", expect: BEARER_OR_SESSION, needsRole: true },
  { path: "/me", expect: BEARER_OR_SESSION },
  { path: "/reviews", expect: BEARER_OR_SESSION },
  { path: "/reviews/mine", expect: BEARER_OR_SESSION },
  { path: "/sign-in", expect: PUBLIC },
  // The website's reading pages: listed work is public (unknown or private work is 404 for all).
  { path: "/", expect: PUBLIC },
  { path: "/campaigns/no-such-campaign", expect: PUBLIC },
  { path: "/problems/no-such-problem", expect: PUBLIC },
  { path: "/problems/no-such-problem/diff?from=1&to=2", expect: PUBLIC },
];

/** Every form POST the pages render: each needs the CSRF token of the browser's session. */
const FORMS = [
  "/sign-in/link",
  "/sign-out",
  "/sign-out/everywhere",
  "/settings/tokens/tok_0000000000/revoke",
  "/settings/oauth-clients/grant0000/revoke",
  "/settings/sessions/ses_0000000000/revoke",
  "/reviews/rpr_0000000000000000/nodes/readers/claim",
  "/review-assignments/ras_0000000000000000/response",
  "/review-assignments/ras_0000000000000000/decline",
  "/work/visibility",
  "/work/archive",
  "/work/implementations/vfi_0000000000000000/yank",
  "/work/review-protocols/rpt_0000000000000000/yank",
  "/work/uploads/aup_0000000000000000/validate",
  "/work/uploads/aup_0000000000000000/publish",
  "/work/drafts/wdr_0000000000000000/request-publication",
  "/work/drafts/wdr_0000000000000000/prepare",
  "/work/drafts/wdr_0000000000000000/publish",
  "/work/publication-requests/pbr_0000000000000000/review",
];

describeWithDatabase("the authorization matrix of the web pages", () => {
  const db = useTestDatabase();
  let app: RunningApp;
  let bearer: string;
  let sessionCookie: string;

  beforeAll(async () => {
    await addUser(db.sql, { handle: "ada" });
    bearer = (await issueToken(db.sql, "ada", ["read", "contribute"])).token;
    app = await startApp(testServices(db.sql));
    // A signed-in session, made the way a browser makes one: open a sign-in link, post its form.
    const link = await issueSignInLink(
      { sql: db.sql, clock: () => new Date() },
      { handle: "ada", baseUrl: app.url },
    );
    const confirm = await fetch(link.url);
    const preSignIn = cookieOf(confirm);
    const signedIn = await fetch(`${app.url}/sign-in/link`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: preSignIn },
      body: new URLSearchParams({ token: link.token, _csrf: csrfOf(await confirm.text()) }).toString(),
    });
    expect(signedIn.status).toBe(303);
    sessionCookie = cookieOf(signedIn);
  });
  afterAll(async () => {
    await app?.close();
  });

  const request = (path: string, credential: Credential) => {
    const headers: Record<string, string> = {
      accept: credential === "anonymous program" ? "application/json" : "text/html",
    };
    if (credential === "bearer") headers.authorization = `Bearer ${bearer}`;
    if (credential === "session") headers.cookie = sessionCookie;
    return fetch(`${app.url}${path}`, { headers, redirect: "manual" });
  };

  for (const page of PAGES) {
    for (const [credential, outcome] of Object.entries(page.expect) as [Credential, Outcome][]) {
      it(`GET ${page.path} with ${credential}: ${outcome}`, async () => {
        const response = await request(page.path, credential);
        const location = response.headers.get("location") ?? "";
        if (outcome === "sign-in redirect" || outcome === "refused (bearer)") {
          // A bearer header alone is not a browser: the settings page still asks to sign in.
          expect(response.status).toBe(303);
          expect(location).toBe(`/sign-in?return_to=${encodeURIComponent(page.path)}`);
        } else if (outcome === "401") {
          expect(response.status).toBe(401);
          expect(((await response.json()) as { error: { code: string } }).error.code).toBe("unauthorized");
        } else {
          expect(page.needsRole ? [403] : [200, 303, 404]).toContain(response.status);
          expect(location).not.toMatch(/^\/sign-in/);
        }
      });
    }
  }

  for (const path of FORMS) {
    it(`POST ${path} without the CSRF token is refused, signed in or not`, async () => {
      for (const cookie of [sessionCookie, undefined]) {
        const response = await fetch(`${app.url}${path}`, {
          method: "POST",
          redirect: "manual",
          headers: {
            accept: "application/json",
            "content-type": "application/x-www-form-urlencoded",
            ...(cookie ? { cookie } : {}),
          },
          body: "token=x",
        });
        expect(response.status).toBe(403);
        expect(((await response.json()) as { error: { code: string } }).error.code).toBe("csrf_failed");
      }
    });
  }

  it("keeps the session signed in through the whole matrix (no row signed it out)", async () => {
    expect((await request("/settings", "session")).status).toBe(200);
  });
});

function cookieOf(response: Response): string {
  return response.headers
    .getSetCookie()
    .map((header) => header.split(";")[0]!)
    .join("; ");
}

function csrfOf(page: string): string {
  return /name="_csrf" value="([^"]+)"/.exec(page)![1]!;
}
