import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import type { CliDeps } from "@svc/app";
import { pino } from "pino";
import { afterAll, beforeAll, expect, it } from "vitest";
import { svcWith } from "../../app/test/cli/support-run.ts";
import { buildApp } from "../../server/src/edges/cli/build-app.ts";
import { addUser } from "../../server/src/users/add-user.ts";
import { grantCapability } from "../../server/src/users/grant-capability.ts";
import { issueToken } from "../../server/src/users/issue-token.ts";
import { authorize } from "../../server/test/edges/http/oauth/support/oauth-driver.ts";
import { modernRpc } from "../../server/test/edges/mcp/support/json-rpc.ts";
import { describeWithDatabase, useTestDatabase } from "../../server/test/support/test-database.ts";
import { testServices } from "../../server/test/support/test-services.ts";

/**
 * `svc login` (the browser flow, driven by the test in the browser's place), `svc login --mcp`
 * (approved through authorize_cli by the user's agent), transparent refresh and `svc logout`,
 * against the real service; then the service's log of all of it holds none of the secrets.
 */
describeWithDatabase("svc login and svc logout against the service", () => {
  const db = useTestDatabase();
  let app: ReturnType<typeof buildApp>;
  let url: string;
  let home: string;
  let operatorToken: string;
  let log = "";
  const secrets: string[] = [];

  beforeAll(async () => {
    const logger = pino(
      { level: "debug" },
      new Writable({
        write(chunk, _encoding, done) {
          log += chunk.toString();
          done();
        },
      }),
    );
    app = buildApp({ ...testServices(db.sql), log: logger });
    url = await app.listen({ host: "127.0.0.1", port: 0 });
    home = mkdtempSync(join(tmpdir(), "svc-login-home-"));
    const ada = await addUser(db.sql, { handle: "ada" });
    await grantCapability(db.sql, { userId: ada.id, capability: "author" });
    operatorToken = (await issueToken(db.sql, "ada", ["read", "contribute"])).token;
  });
  afterAll(async () => {
    await app?.close();
    rmSync(home, { recursive: true, force: true });
  });

  const path = () => join(home, "svc", "credentials.json");
  const stored = () => JSON.parse(readFileSync(path(), "utf8")) as Record<string, string>;
  const deps = (extra: Partial<CliDeps> = {}): Partial<CliDeps> => ({
    env: { XDG_CONFIG_HOME: home },
    sleep: async () => {},
    ...extra,
  });
  const mcpStatus = async (token: string) => (await modernRpc(url, token, "tools/list")).status;

  it("svc login: the browser flow stores a refreshable credential (0600) that whoami uses", async () => {
    let opened = "";
    const run = await svcWith(
      deps({
        openBrowser: async (authorizationUrl) => {
          opened = authorizationUrl;
          // The browser: consent as ada, then follow the redirect to the command's loopback listener.
          const back = await authorize(authorizationUrl, operatorToken);
          secrets.push(back.searchParams.get("code")!);
          await (await fetch(back)).text();
          return true;
        },
      }),
      ["login", "--server", url],
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(opened); // printed for SSH sessions, whether or not a browser opened
    expect(opened).toContain("code_challenge_method=S256");
    expect(statSync(path()).mode & 0o777).toBe(0o600);
    const credential = stored();
    expect(credential).toMatchObject({ server: url, kind: "oauth" });
    secrets.push(credential.token!, credential.refresh_token!);

    const whoami = await svcWith(deps(), ["whoami", "--json"]);
    expect(whoami.code, whoami.stderr).toBe(0);
    expect(JSON.parse(whoami.stdout)).toMatchObject({
      user: { handle: "ada" },
      scopes: ["read", "contribute"],
      capabilities: ["author"],
    });

    // An expired access token is refreshed (and the refresh token rotated) before the call.
    writeFileSync(path(), JSON.stringify({ ...credential, expires_at: new Date(0).toISOString() }), {
      mode: 0o600,
    });
    expect((await svcWith(deps(), ["whoami"])).code).toBe(0);
    const refreshed = stored();
    expect(refreshed.token).not.toBe(credential.token);
    expect(refreshed.refresh_token).not.toBe(credential.refresh_token);
    secrets.push(refreshed.token!, refreshed.refresh_token!);
    expect(await mcpStatus(refreshed.token!)).toBe(200);

    // svc logout revokes the grant on the service, then forgets the file.
    const logout = await svcWith(deps(), ["logout"]);
    expect(logout.stdout).toContain("revoked the credential");
    expect(await mcpStatus(refreshed.token!)).toBe(401);
    const reuse = await fetch(`${url}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "refresh_token",
        refresh_token: refreshed.refresh_token!,
        client_id: refreshed.client_id!,
      }),
    });
    expect(((await reuse.json()) as { error: string }).error).toBe("invalid_grant");
  });

  it("svc login --mcp: the agent approves the code with authorize_cli; logout revokes", async () => {
    let stderr = "";
    let approval: Record<string, unknown> | undefined;
    const run = await svcWith(
      deps({
        sleep: async () => {
          if (approval) return;
          const code = /"code": "([A-Z2-9-]+)"/.exec(stderr)?.[1];
          secrets.push(code!);
          // The user's connected agent calls authorize_cli with the code the terminal shows.
          const { body } = await modernRpc(url, operatorToken, "tools/call", {
            name: "authorize_cli",
            arguments: { code },
          });
          approval = (body.result as { structuredContent: Record<string, unknown> }).structuredContent;
        },
      }),
      ["login", "--mcp", "--server", url],
      {
        stderr: (text) => {
          stderr += text;
        },
      },
    );
    expect(run.code, stderr).toBe(0);
    expect(approval).toEqual({
      ok: true,
      code: expect.stringMatching(/^[A-Z2-9]{4}-[A-Z2-9]{4}$/),
      client_name: "svc command line",
      scope: "read contribute author",
    });
    const credential = stored();
    expect(credential).toMatchObject({ server: url, kind: "mcp" });
    secrets.push(credential.token!);
    const whoami = await svcWith(deps(), ["whoami", "--json"]);
    expect(JSON.parse(whoami.stdout)).toMatchObject({
      user: { handle: "ada" },
      scopes: ["read", "contribute"],
      capabilities: ["author"],
    });

    // The code is spent: approving it again is refused.
    const again = await modernRpc(url, operatorToken, "tools/call", {
      name: "authorize_cli",
      arguments: { code: approval!.code },
    });
    expect(JSON.stringify(again.body)).toContain("not_found");

    expect((await svcWith(deps(), ["logout"])).stdout).toContain("revoked the credential");
    expect(await mcpStatus(credential.token!)).toBe(401);
  });

  it("the service's log of both flows holds no code, token or refresh token", () => {
    expect(log.length).toBeGreaterThan(0);
    expect(secrets.length).toBeGreaterThanOrEqual(6);
    for (const secret of secrets) expect(log).not.toContain(secret);
  });
});
