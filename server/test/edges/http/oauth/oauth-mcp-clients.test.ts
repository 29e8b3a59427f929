import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { addUser, grantCapability, issueToken } from "../../../../src/users/index.ts";
import { describeWithDatabase, useTestDatabase } from "../../../support/test-database.ts";
import { testServices } from "../../../support/test-services.ts";
import { type RunningApp, startApp } from "../../mcp/support/start-app.ts";
import { authorize } from "./support/oauth-driver.ts";
import { lines, REDIRECT, TestAuthProvider } from "./support/sdk-oauth-clients.ts";

/** Waits (at most a second) until /mcp refuses `token`: a change reaches the token cache by NOTIFY. */
async function refusedSoon(url: string, token: string): Promise<void> {
  const deadline = performance.now() + 1000;
  for (;;) {
    const response = await fetch(`${url}/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    });
    await response.arrayBuffer();
    if (response.status === 401 || performance.now() > deadline) return;
  }
}

describeWithDatabase("MCP clients' own OAuth support against the authorization server", () => {
  const db = useTestDatabase();
  let app: RunningApp;
  let bearer: string;
  let metadataServer: Server;
  let metadataUrl: string;

  beforeAll(async () => {
    const ada = await addUser(db.sql, { handle: "ada" });
    await grantCapability(db.sql, { userId: ada.id, capability: "author" });
    ({ token: bearer } = await issueToken(db.sql, "ada", ["read"]));
    app = await startApp({ ...testServices(db.sql), allowLoopbackOAuthClients: true });
    // A client metadata document on loopback https with a throwaway self-signed certificate.
    const dir = mkdtempSync(join(tmpdir(), "svc-cimd-"));
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-subj",
        "/CN=127.0.0.1",
        "-days",
        "1",
        "-keyout",
        join(dir, "key.pem"),
        "-out",
        join(dir, "cert.pem"),
      ],
      { stdio: "ignore" },
    );
    metadataServer = createServer(
      { key: readFileSync(join(dir, "key.pem")), cert: readFileSync(join(dir, "cert.pem")) },
      (_request, response) => {
        response.setHeader("content-type", "application/json");
        response.setHeader("cache-control", "max-age=300");
        response.end(
          JSON.stringify({
            client_id: metadataUrl,
            client_name: "metadata document client",
            redirect_uris: [REDIRECT],
            grant_types: ["authorization_code", "refresh_token"],
            response_types: ["code"],
            token_endpoint_auth_method: "none",
          }),
        );
      },
    );
    await new Promise<void>((resolve) => metadataServer.listen(0, "127.0.0.1", resolve));
    const address = metadataServer.address() as { port: number };
    metadataUrl = `https://127.0.0.1:${address.port}/client.json`;
  });
  afterAll(async () => {
    await app?.close();
    metadataServer?.close();
  });

  for (const line of lines) {
    for (const registration of ["dynamic client registration", "client ID metadata document"] as const) {
      it(`${line.name}, ${registration}: 401, discovery, registration, consent, token, whoami, refresh, revocation`, async () => {
        const provider = new TestAuthProvider(
          (authorizationUrl) => authorize(authorizationUrl, bearer),
          registration === "client ID metadata document" ? metadataUrl : undefined,
        );
        const session = await line.connect(app.url, provider);
        expect(provider.code).toEqual(expect.any(String));
        const clientId = (provider.clientInformation() as { client_id: string } | undefined)?.client_id;
        if (registration === "client ID metadata document") expect(clientId).toBe(metadataUrl);
        else expect(clientId).toMatch(/^[\w-]+$/);
        const me = await session.whoami();
        expect(me).toMatchObject({
          user: { handle: "ada" },
          scopes: ["read", "contribute"],
          capabilities: ["author"],
        });

        // The access token expires: the client refreshes on the 401 and carries on.
        const before = provider.accessToken;
        await db.sql`delete from oauth_models where kind = 'AccessToken'`;
        // Replicas learn of the deletion from its notice, a few milliseconds after the commit.
        await refusedSoon(app.url, before);
        const again = await line.connect(app.url, provider);
        expect(await again.whoami()).toMatchObject({ user: { handle: "ada" } });
        expect(provider.accessToken).not.toBe(before);

        // Revoked (RFC 7009): the token is refused.
        const revoked = await fetch(`${app.url}/oauth/token/revocation`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({ token: provider.accessToken, client_id: clientId! }).toString(),
        });
        expect(revoked.status).toBe(200);
        const refused = await fetch(`${app.url}/mcp`, {
          method: "POST",
          headers: {
            authorization: `Bearer ${provider.accessToken}`,
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
          },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
        });
        expect(refused.status).toBe(401);
      });
    }
  }

  it("without the test-only setting, refuses the same document because it is served from loopback", async () => {
    const strict = await startApp(testServices(db.sql));
    try {
      const response = await fetch(
        `${strict.url}/oauth/auth?${new URLSearchParams({
          client_id: metadataUrl,
          response_type: "code",
          redirect_uri: REDIRECT,
          scope: "read",
          code_challenge: "x".repeat(43),
          code_challenge_method: "S256",
        })}`,
        { redirect: "manual" },
      );
      expect(response.status).toBe(400);
      expect(await response.text()).toContain("invalid_client");
    } finally {
      await strict.close();
    }
  });
});
