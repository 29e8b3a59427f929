import { createHash, randomBytes } from "node:crypto";
import { ServiceError } from "../core/errors/service-error.ts";
import type { GitHubSignInSettings } from "../core/services/github-sign-in-settings.ts";
import type { Services } from "../core/services/services.ts";
import { type GitHubAccount, userForGitHubAccount } from "../users/github-account.ts";
import { safeReturnTo } from "./return-to.ts";
import { secretHash } from "./session-secret.ts";

/** A started Sign in with GitHub must come back within this long, and once. */
export const GITHUB_STATE_LIFETIME_MS = 10 * 60 * 1000;
/** Each request to GitHub gets this long, and its answer at most this many bytes. */
const GITHUB_TIMEOUT_MS = 10_000;
const GITHUB_MAX_BYTES = 64 * 1024;
/** `state` as we mint it: 32 random bytes, base64url. */
const STATE_PATTERN = /^[A-Za-z0-9_-]{43}$/;
/** GitHub's codes are short; anything long is not one. */
const CODE_PATTERN = /^[A-Za-z0-9_-]{1,256}$/;

/** The path GitHub sends the browser back to; register `{base_url}` + this as the callback URL. */
export const GITHUB_CALLBACK_PATH = "/sign-in/github/callback";

/**
 * Starts Sign in with GitHub for the browser whose cookie secret is `browserSecret`: stores a
 * one-time `state` bound to that browser with a PKCE verifier (RFC 7636, S256) and returns the
 * GitHub authorization URL to redirect to.
 */
export async function startGitHubSignIn(
  services: Pick<Services, "sql" | "clock">,
  github: GitHubSignInSettings,
  input: { browserSecret: string; baseUrl: string; returnTo: string | null },
): Promise<string> {
  const state = randomBytes(32).toString("base64url");
  const verifier = randomBytes(32).toString("base64url");
  const now = services.clock();
  await services.sql`
    insert into github_sign_in_states (state_hash, browser_hash, code_verifier, return_to, created_at, expires_at)
    values (${secretHash(state)}, ${secretHash(input.browserSecret)}, ${verifier}, ${safeReturnTo(input.returnTo)},
      ${now}, ${new Date(now.getTime() + GITHUB_STATE_LIFETIME_MS)})`;
  const url = new URL(`${github.webUrl}/login/oauth/authorize`);
  url.search = new URLSearchParams({
    client_id: github.clientId,
    redirect_uri: `${input.baseUrl}${GITHUB_CALLBACK_PATH}`,
    state,
    code_challenge: createHash("sha256").update(verifier).digest("base64url"),
    code_challenge_method: "S256",
    // No scope: the public profile (id and login) is all the service reads.
    scope: "",
    allow_signup: "true",
  }).toString();
  return url.toString();
}

/** What GitHub sent back to the callback. */
export interface GitHubCallback {
  code?: string | undefined;
  state?: string | undefined;
  error?: string | undefined;
  error_description?: string | undefined;
}

/**
 * Completes Sign in with GitHub: uses the one-time `state` (it must have been issued to this
 * browser: csrf_failed otherwise), exchanges GitHub's code with the PKCE verifier, reads the
 * account and finds, links or creates its user (userForGitHubAccount). GitHub's access token is
 * used for that one read and never stored. Any failure is github_sign_in_failed (or
 * signup_closed), never a 5xx.
 */
export async function finishGitHubSignIn(
  services: Pick<Services, "sql" | "clock" | "log">,
  github: GitHubSignInSettings,
  input: { callback: GitHubCallback; browserSecret: string | null; baseUrl: string },
): Promise<{ userId: string; returnTo: string | null; created: boolean }> {
  const { callback } = input;
  if (typeof callback.state !== "string" || !STATE_PATTERN.test(callback.state)) {
    throw failed("GitHub sent the browser back without this service's state");
  }
  const now = services.clock();
  const [started] = await services.sql<
    { browser_hash: string; code_verifier: string; return_to: string | null }[]
  >`
    update github_sign_in_states set used_at = ${now}
    where state_hash = ${secretHash(callback.state)} and used_at is null and expires_at > ${now}
    returning browser_hash, code_verifier, return_to`;
  if (!started) throw failed("this sign-in is older than 10 minutes or was already used");
  if (input.browserSecret === null || secretHash(input.browserSecret) !== started.browser_hash) {
    throw new ServiceError(
      "csrf_failed",
      "this Sign in with GitHub was started in another browser (its state is not this browser's): start again here",
    );
  }
  if (callback.error !== undefined) {
    throw failed(
      callback.error === "access_denied"
        ? "you declined on GitHub"
        : `GitHub answered ${String(callback.error).slice(0, 100)}`,
    );
  }
  if (typeof callback.code !== "string" || !CODE_PATTERN.test(callback.code)) {
    throw failed("GitHub sent the browser back without a code");
  }
  const accessToken = await exchangeCode(services, github, {
    code: callback.code,
    verifier: started.code_verifier,
    redirectUri: `${input.baseUrl}${GITHUB_CALLBACK_PATH}`,
  });
  const account = await readAccount(services, github, accessToken);
  const { userId, created } = await userForGitHubAccount(services.sql, account, github.signup);
  return { userId, returnTo: started.return_to, created };
}

/** Deletes started sign-ins a day past their expiry (they are never read after it). */
export async function purgeExpiredGitHubStates(services: Pick<Services, "sql" | "clock">): Promise<number> {
  const rows = await services.sql`
    delete from github_sign_in_states where expires_at < ${new Date(services.clock().getTime() - 24 * 3600_000)}`;
  return rows.count;
}

async function exchangeCode(
  services: Pick<Services, "log">,
  github: GitHubSignInSettings,
  input: { code: string; verifier: string; redirectUri: string },
): Promise<string> {
  const body = await requestGitHub(services, `${github.webUrl}/login/oauth/access_token`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      client_id: github.clientId,
      client_secret: github.clientSecret,
      code: input.code,
      redirect_uri: input.redirectUri,
      code_verifier: input.verifier,
    }),
  });
  const token = (body as { access_token?: unknown }).access_token;
  if (typeof token === "string" && token.length > 0 && token.length <= 512) return token;
  const error = (body as { error?: unknown }).error;
  throw failed(
    typeof error === "string"
      ? `GitHub refused the code (${error.slice(0, 100)})`
      : "GitHub's token answer holds no access token",
  );
}

async function readAccount(
  services: Pick<Services, "log">,
  github: GitHubSignInSettings,
  accessToken: string,
): Promise<GitHubAccount> {
  const body = (await requestGitHub(services, `${github.apiUrl}/user`, {
    method: "GET",
    headers: { authorization: `Bearer ${accessToken}`, "x-github-api-version": "2022-11-28" },
  })) as { id?: unknown; login?: unknown };
  if (
    typeof body.id !== "number" ||
    !Number.isSafeInteger(body.id) ||
    body.id <= 0 ||
    typeof body.login !== "string" ||
    !/^[A-Za-z0-9-]{1,39}$/.test(body.login)
  ) {
    throw failed("GitHub's user answer holds no numeric id and login");
  }
  return { id: body.id, login: body.login };
}

/** One request to GitHub, bounded in time and size; its JSON answer, or github_sign_in_failed. */
async function requestGitHub(
  services: Pick<Services, "log">,
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string },
): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(url, {
      ...init,
      headers: { accept: "application/json", "user-agent": "svc", ...init.headers },
      redirect: "error",
      signal: AbortSignal.timeout(GITHUB_TIMEOUT_MS),
    });
  } catch (error) {
    services.log.warn(
      { url: url.split("?")[0], err: (error as Error).message },
      "GitHub could not be reached",
    );
    throw failed("GitHub could not be reached in time; try again in a moment");
  }
  const text = await readBounded(response);
  if (text === null) throw failed("GitHub's answer was larger than expected");
  if (!response.ok) {
    services.log.warn(
      { url: url.split("?")[0], status: response.status },
      "GitHub refused a sign-in request",
    );
    throw failed(`GitHub answered ${response.status}`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw failed("GitHub's answer was not JSON");
  }
}

async function readBounded(response: Response): Promise<string | null> {
  if (!response.body) return "";
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body) {
    size += chunk.byteLength;
    // Leaving the loop cancels the rest of the body.
    if (size > GITHUB_MAX_BYTES) return null;
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks).toString("utf8");
}

function failed(why: string): ServiceError {
  return new ServiceError(
    "github_sign_in_failed",
    `Sign in with GitHub did not complete: ${why}. Start again from the sign-in page.`,
  );
}
