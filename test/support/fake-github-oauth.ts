import { createHash, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** The GitHub account the fake's browser is signed in to at GitHub. */
export interface FakeGitHubAccount {
  id: number;
  login: string;
}

export interface FakeGitHubOAuth {
  /** Both GitHub's web address and its API address (`SVC_GITHUB_URL`, `SVC_GITHUB_API_URL`). */
  url: string;
  clientId: string;
  clientSecret: string;
  /** Who is signed in at GitHub: the next authorization is for this account. */
  signInAs(account: FakeGitHubAccount): void;
  /** The next authorization is declined by the person (GitHub's `error=access_denied`). */
  declineNext(): void;
  /** Every secret the fake handed out or received (codes, access tokens), for log scans. */
  secrets: string[];
  close(): Promise<void>;
}

interface IssuedCode {
  account: FakeGitHubAccount;
  redirectUri: string;
  challenge: string;
  used: boolean;
}

/**
 * A local HTTP server speaking GitHub's OAuth web flow and the one API call Sign in with GitHub
 * makes, with GitHub's rules where they matter:
 *
 * - `GET /login/oauth/authorize`: an unknown client_id is refused (404); a person already signed
 *   in at GitHub who authorized the app before is sent straight back to `redirect_uri` with
 *   `code` and `state` (302); a declined one with `error=access_denied`.
 * - `POST /login/oauth/access_token` (JSON or form): the client's secret, the code (once, for 10
 *   minutes), the same `redirect_uri` and the PKCE `code_verifier` (S256) must match; like GitHub,
 *   a refusal is a 200 whose JSON holds `error` (`bad_verification_code`, `incorrect_client_credentials`,
 *   `redirect_uri_mismatch`).
 * - `GET /user` with `Authorization: Bearer <token>`: the account (`id`, `login`, ...), else 401.
 */
export async function startFakeGitHubOAuth(): Promise<FakeGitHubOAuth> {
  const clientId = `Iv1.${randomBytes(8).toString("hex")}`;
  const clientSecret = randomBytes(20).toString("hex");
  const codes = new Map<string, IssuedCode & { expires: number }>();
  const tokens = new Map<string, FakeGitHubAccount>();
  const secrets: string[] = [clientSecret];
  let account: FakeGitHubAccount = { id: 1, login: "octocat" };
  let decline = false;

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    const body = await readBody(req);
    const json = (status: number, value: unknown) => {
      res.writeHead(status, { "content-type": "application/json; charset=utf-8" });
      res.end(JSON.stringify(value));
    };
    if (req.method === "GET" && url.pathname === "/login/oauth/authorize") {
      const q = url.searchParams;
      if (q.get("client_id") !== clientId) return json(404, { message: "Not Found" });
      const redirect = new URL(q.get("redirect_uri") ?? "");
      const state = q.get("state");
      if (state !== null) redirect.searchParams.set("state", state);
      if (decline) {
        decline = false;
        redirect.searchParams.set("error", "access_denied");
        redirect.searchParams.set("error_description", "The user has denied your application access.");
      } else {
        if (q.get("code_challenge_method") !== "S256" || !q.get("code_challenge")) {
          return json(400, { message: "code_challenge with S256 expected" });
        }
        const code = randomBytes(10).toString("hex");
        secrets.push(code);
        codes.set(code, {
          account,
          redirectUri: q.get("redirect_uri")!,
          challenge: q.get("code_challenge")!,
          used: false,
          expires: Date.now() + 10 * 60_000,
        });
        redirect.searchParams.set("code", code);
      }
      res.writeHead(302, { location: redirect.toString() });
      return res.end();
    }
    if (req.method === "POST" && url.pathname === "/login/oauth/access_token") {
      const form = (req.headers["content-type"] ?? "").includes("json")
        ? (JSON.parse(body || "{}") as Record<string, string>)
        : Object.fromEntries(new URLSearchParams(body));
      if (form.client_id !== clientId || form.client_secret !== clientSecret) {
        return json(200, { error: "incorrect_client_credentials" });
      }
      const issued = codes.get(form.code ?? "");
      if (!issued || issued.used || issued.expires < Date.now()) {
        return json(200, {
          error: "bad_verification_code",
          error_description: "The code passed is incorrect or expired.",
        });
      }
      issued.used = true;
      if (issued.redirectUri !== form.redirect_uri) return json(200, { error: "redirect_uri_mismatch" });
      const challenge = createHash("sha256")
        .update(form.code_verifier ?? "")
        .digest("base64url");
      if (challenge !== issued.challenge) {
        return json(200, {
          error: "bad_verification_code",
          error_description: "The code_verifier does not match.",
        });
      }
      const token = `gho_${randomBytes(18).toString("hex")}`;
      secrets.push(token);
      tokens.set(token, issued.account);
      return json(200, { access_token: token, token_type: "bearer", scope: "" });
    }
    if (req.method === "GET" && url.pathname === "/user") {
      const token = (req.headers.authorization ?? "").replace(/^(bearer|token)\s+/i, "");
      const who = tokens.get(token);
      if (!who) return json(401, { message: "Requires authentication" });
      return json(200, { login: who.login, id: who.id, type: "User", name: null, site_admin: false });
    }
    json(404, { message: "Not Found" });
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: Error) => {
      res.writeHead(500);
      res.end(error.message);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    clientId,
    clientSecret,
    secrets,
    signInAs: (next) => {
      account = next;
    },
    declineNext: () => {
      decline = true;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
