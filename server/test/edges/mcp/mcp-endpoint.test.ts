import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resourceTemplates, tools } from "../../../src/edges/mcp/tools/tools.ts";
import { addUser, grantCapability, grantRole, issueToken } from "../../../src/users/index.ts";
import { describeWithDatabase, useTestDatabase } from "../../support/test-database.ts";
import { testServices } from "../../support/test-services.ts";
import { legacyRpc, MODERN_REVISION, modernRpc } from "./support/json-rpc.ts";
import { clientLines, envelopeOf, type TestClient } from "./support/mcp-clients.ts";
import { type RunningApp, startApp } from "./support/start-app.ts";

const ALL_TOOLSETS = { "x-mcp-toolsets": "all" };
const AUTHORING_SKILL_URI = "svc://authoring/skill/latest";

describeWithDatabase("the /mcp endpoint", () => {
  const db = useTestDatabase();
  let app: RunningApp;
  let token: string;

  beforeAll(async () => {
    // An administrator and author with every scope, asking for every toolset, sees every tool.
    const ada = await addUser(db.sql, { handle: "ada" });
    await grantRole(db.sql, { userId: ada.id, role: "administrator" });
    await grantCapability(db.sql, { userId: ada.id, capability: "author" });
    ({ token } = await issueToken(db.sql, "ada", ["read", "contribute"]));
    app = await startApp(testServices(db.sql));
  });
  afterAll(() => app?.close());

  describe.each(clientLines)("with the $name", ({ connect }) => {
    let client: TestClient;
    beforeAll(async () => {
      client = await connect(app.url, token, "?toolsets=all");
    });
    afterAll(() => client?.close());

    it("lists every registered tool", async () => {
      const listed = await client.listTools();
      expect(listed.map((t) => t.name).sort()).toEqual(tools.map((t) => t.name).sort());
    });

    it("answers whoami with one JSON envelope", async () => {
      const result = await client.callTool("whoami");
      expect(result.isError).toBeFalsy();
      const envelope = envelopeOf(result);
      expect(envelope).toMatchObject({
        user: { handle: "ada" },
        memberships: [],
        work_role: "administrator",
        scopes: ["read", "contribute"],
        capabilities: ["author"],
      });
    });

    it("answers arguments the schema refuses with an invalid_input tool error naming the field", async () => {
      const unknown = await client.callTool("whoami", { handel: "ada" });
      expect(unknown.isError).toBe(true);
      expect(envelopeOf(unknown)).toMatchObject({
        error: { code: "invalid_input", field: "handel", message: expect.stringContaining('"handel"') },
      });
      const badAttempt = await client.callTool("whoami", { working_attempt_id: "attempt-1" });
      expect(envelopeOf(badAttempt)).toMatchObject({
        error: {
          code: "invalid_input",
          field: "working_attempt_id",
          message: expect.stringContaining("must be an Attempt id"),
        },
      });
    });

    it("lists every registered resource template", async () => {
      const listed = await client.listResourceTemplates();
      expect(listed.map((t) => t.uriTemplate).sort()).toEqual(
        resourceTemplates.map((t) => t.uriTemplate).sort(),
      );
    });

    it("reads the authoring skill, when its template is registered", async () => {
      const registered = resourceTemplates.some((t) => t.uriTemplate === AUTHORING_SKILL_URI);
      if (!registered) return;
      const contents = await client.readResource(AUTHORING_SKILL_URI);
      expect(contents[0]).toMatchObject({ uri: AUTHORING_SKILL_URI, text: expect.any(String) });
    });

    it("answers an unknown resource URI with an MCP error naming it", async () => {
      const uri = "svc://no-such-thing/xyz";
      await expect(client.readResource(uri)).rejects.toMatchObject({
        code: -32602,
        message: expect.stringContaining(uri),
        data: { uri, error: { code: "not_found" } },
      });
    });
  });

  it("annotates every registered tool by its kind", async () => {
    const { body } = await modernRpc(app.url, token, "tools/list", {}, ALL_TOOLSETS);
    const listed = body.result!.tools as Array<{ name: string; annotations: Record<string, unknown> }>;
    for (const tool of tools) {
      const { annotations } = listed.find((t) => t.name === tool.name)!;
      expect(annotations, tool.name).toMatchObject({
        readOnlyHint: tool.kind === "read",
        destructiveHint: tool.kind === "destructive",
      });
    }
  });

  it("gives every read tool but the private draft reads an optional working_attempt_id and no write tool one it did not declare", async () => {
    const { body } = await modernRpc(app.url, token, "tools/list", {}, ALL_TOOLSETS);
    const listed = body.result!.tools as Array<{ name: string; inputSchema: Record<string, never> }>;
    for (const tool of tools) {
      const { inputSchema } = listed.find((t) => t.name === tool.name)!;
      const declared = Object.hasOwn(tool.input.shape, "working_attempt_id");
      const properties = (inputSchema.properties ?? {}) as Record<string, unknown>;
      expect(Object.hasOwn(properties, "working_attempt_id"), tool.name).toBe(
        (tool.kind === "read" && tool.privateRead !== true) || declared,
      );
      expect(inputSchema.required ?? [], tool.name).not.toContain("working_attempt_id");
    }
  });

  it("answers server/discover with the 2026-07-28 revision", async () => {
    const { status, body } = await modernRpc(app.url, token, "server/discover");
    expect(status).toBe(200);
    expect(body.result).toMatchObject({
      supportedVersions: expect.arrayContaining([MODERN_REVISION]),
      capabilities: { tools: {}, resources: {} },
      resultType: "complete",
    });
  });

  it("marks resource and template listings complete, private and never cached on 2026-07-28", async () => {
    for (const method of ["resources/list", "resources/templates/list"]) {
      const { body } = await modernRpc(app.url, token, method);
      expect(body.result, method).toMatchObject({ resultType: "complete", ttlMs: 0, cacheScope: "private" });
    }
  });

  it("answers a 2025-era call without a handshake: no request depends on an earlier one", async () => {
    const { status, body } = await legacyRpc(app.url, token, "tools/call", { name: "whoami", arguments: {} });
    expect(status).toBe(200);
    expect(body.result).toMatchObject({ structuredContent: { user: { handle: "ada" } } });
  });

  it("answers a 2025-era call that sends nothing before its result with one JSON body, not an SSE stream", async () => {
    for (const [method, params] of [
      ["tools/call", { name: "whoami", arguments: {} }],
      ["tools/list", {}],
      ["resources/templates/list", {}],
      ["ping", {}],
    ] as const) {
      const { status, headers, body } = await legacyRpc(app.url, token, method, params);
      expect(status, method).toBe(200);
      expect(headers.get("content-type"), method).toMatch(/^application\/json/);
      expect(body.result, method).toBeDefined();
    }
    // initialize goes to a server of its own (it records the client's identity), in the SDK's own form.
    const initialize = {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "t", version: "1" },
    };
    const { status, body } = await legacyRpc(app.url, token, "initialize", initialize);
    expect(status).toBe(200);
    expect(body.result).toMatchObject({ serverInfo: { name: "svc" } });
    // A refusal is answered the same way.
    const refused = await legacyRpc(app.url, token, "tools/call", { name: "no_such_tool", arguments: {} });
    expect(refused.headers.get("content-type")).toMatch(/^application\/json/);
    expect(refused.body.error ?? refused.body.result).toBeDefined();
  });

  it("answers every caller as itself while requests of two callers interleave on reused servers", async () => {
    await addUser(db.sql, { handle: "bea" });
    const bea = (await issueToken(db.sql, "bea", ["read"])).token;
    const calls = Array.from({ length: 40 }, (_, i) => {
      const [handle, caller] = i % 2 === 0 ? ["ada", token] : ["bea", bea];
      const rpc = i % 4 < 2 ? modernRpc : legacyRpc;
      return rpc(app.url, caller, "tools/call", { name: "whoami", arguments: {} }).then(({ body }) => {
        expect(body.result).toMatchObject({ structuredContent: { user: { handle } } });
      });
    });
    await Promise.all(calls);
  });

  it("answers GET and DELETE with 405: the endpoint keeps no sessions", async () => {
    for (const method of ["GET", "DELETE"]) {
      const response = await fetch(`${app.url}/mcp`, {
        method,
        headers: { authorization: `Bearer ${token}`, accept: "text/event-stream" },
      });
      expect(response.status, method).toBe(405);
      expect(response.headers.get("allow")).toBe("POST");
    }
  });
});
