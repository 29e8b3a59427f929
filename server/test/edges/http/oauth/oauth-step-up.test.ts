import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, expect, it } from "vitest";
import { addUser, issueToken } from "../../../../src/users/index.ts";
import { describeWithDatabase, useTestDatabase } from "../../../support/test-database.ts";
import { testServices } from "../../../support/test-services.ts";
import { legacyRpc } from "../../mcp/support/json-rpc.ts";
import { envelopeOf, type ToolCallResult } from "../../mcp/support/mcp-clients.ts";
import { type RunningApp, startApp } from "../../mcp/support/start-app.ts";
import { authorize } from "./support/oauth-driver.ts";
import { TestAuthProvider } from "./support/sdk-oauth-clients.ts";

/**
 * MCP's step-up authorization (issue 36): an OAuth client whose token lacks a tool's scope gets
 * 403 `insufficient_scope` naming the scopes to ask for, re-authorizes through the SDK's own
 * flow, and its retried call succeeds. An operator token keeps the operator's advice.
 */
describeWithDatabase("step-up authorization on /mcp", () => {
  const db = useTestDatabase();
  let app: RunningApp;
  let bearer: string;

  beforeAll(async () => {
    await addUser(db.sql, { handle: "ada" });
    ({ token: bearer } = await issueToken(db.sql, "ada", ["read", "contribute"]));
    app = await startApp({ ...testServices(db.sql), allowLoopbackOAuthClients: true });
  });
  afterAll(() => app?.close());

  it("answers a read-only OAuth token 403 insufficient_scope, and the SDK client re-authorizes and succeeds", async () => {
    // The first consent is asked for `read` alone, as a client that wanted least privilege would.
    const requestedScopes: string[] = [];
    const provider = new TestAuthProvider((authorizationUrl) => {
      const url = new URL(authorizationUrl);
      requestedScopes.push(url.searchParams.get("scope") ?? "");
      if (requestedScopes.length === 1) url.searchParams.set("scope", "read");
      return authorize(url.href, bearer);
    });
    const endpoint = new URL(`${app.url}/mcp`);
    const first = new StreamableHTTPClientTransport(endpoint, { authProvider: provider });
    await expect(new Client({ name: "t", version: "1" }).connect(first)).rejects.toThrow(/nauthorized/);
    await first.finishAuth(provider.callback);

    // Read-only: the raw answer to a write is the step-up challenge.
    const raw = await fetch(endpoint, {
      method: "POST",
      headers: {
        authorization: `Bearer ${provider.accessToken}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "create_organization", arguments: { slug: "raw", name: "Raw" } },
      }),
    });
    expect(raw.status).toBe(403);
    const challenge = raw.headers.get("www-authenticate") ?? "";
    expect(challenge).toMatch(/^Bearer /);
    expect(challenge).toContain('error="insufficient_scope"');
    expect(challenge).toContain('scope="read contribute"');
    expect(challenge).toContain(`resource_metadata="${app.url}/.well-known/oauth-protected-resource/mcp"`);

    // The SDK client meets the same 403, re-authorizes for the union of scopes and is sent to consent.
    const transport = new StreamableHTTPClientTransport(endpoint, { authProvider: provider });
    const client = new Client({ name: "t", version: "1" });
    await client.connect(transport);
    await expect(
      client.callTool({ name: "create_organization", arguments: { slug: "stepped", name: "Stepped up" } }),
    ).rejects.toThrow(/nauthorized/);
    expect(requestedScopes.length).toBe(2);
    expect(requestedScopes[1]!.split(" ")).toEqual(expect.arrayContaining(["read", "contribute"]));
    await transport.finishAuth(provider.callback);
    await client.close();

    const again = new Client({ name: "t", version: "1" });
    await again.connect(new StreamableHTTPClientTransport(endpoint, { authProvider: provider }));
    const result = (await again.callTool({
      name: "create_organization",
      arguments: { slug: "stepped", name: "Stepped up" },
    })) as ToolCallResult;
    expect(result.isError).toBeFalsy();
    expect(envelopeOf(result)).toMatchObject({ organization: { slug: "stepped" } });
    const me = envelopeOf((await again.callTool({ name: "whoami", arguments: {} })) as ToolCallResult);
    expect(me).toMatchObject({ scopes: ["read", "contribute"] });
    await again.close();
  });

  it("gives an operator token the operator's advice as a tool error, not a challenge", async () => {
    const { token } = await issueToken(db.sql, "ada", ["read"]);
    const { status, body } = await legacyRpc(app.url, token, "tools/call", {
      name: "create_organization",
      arguments: { slug: "op", name: "Op" },
    });
    expect(status).toBe(200);
    const result = body.result as unknown as ToolCallResult;
    expect(result.isError).toBe(true);
    expect(envelopeOf(result)).toMatchObject({
      error: {
        code: "forbidden",
        scope: "contribute",
        message: expect.stringContaining("svc-server token issue"),
      },
    });
  });
});
