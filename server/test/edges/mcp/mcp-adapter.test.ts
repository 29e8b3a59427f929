import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { ServiceError } from "../../../src/core/errors/service-error.ts";
import type { ResourceTemplate } from "../../../src/edges/mcp/resources/resource-template.ts";
import { defineTool, type Tool } from "../../../src/edges/mcp/tools/tool.ts";
import { addUser, issueToken } from "../../../src/users/index.ts";
import { describeWithDatabase, useTestDatabase } from "../../support/test-database.ts";
import { testServices } from "../../support/test-services.ts";
import { modernRpc } from "./support/json-rpc.ts";
import { clientLines, envelopeOf, type TestClient } from "./support/mcp-clients.ts";
import { type RunningApp, startMcpApp } from "./support/start-app.ts";

const ATTEMPT = "att_0123456789abc";

/** test_hold waits until the test lets it go: a call whose caller goes away before its answer. */
let holding: () => void = () => {};
const held = new Promise<void>((resolve) => {
  holding = resolve;
});
let letGo: () => void = () => {};
const released = new Promise<void>((resolve) => {
  letGo = resolve;
});

/** Test templates: one that echoes its variables, one with a listing, one that fails. */
const templates: ResourceTemplate[] = [
  {
    name: "test_file",
    uriTemplate: "svc://test-files/{file_id}/{+path}",
    title: "A test file",
    description: "Echoes the variables it matched.",
    read: async (_context, uri, variables) => [
      {
        uri,
        mimeType: "application/json",
        text: JSON.stringify(variables),
        _meta: { content_hash: "sha256:x" },
      },
    ],
  },
  {
    name: "test_note",
    uriTemplate: "svc://test-notes/{note_id}",
    title: "A test note",
    description: "A note; n1 exists.",
    read: async (_context, uri, { note_id }) => {
      if (note_id !== "n1") throw new ServiceError("not_found", `no note ${note_id}`);
      return [{ uri, mimeType: "text/plain", text: "note one" }];
    },
    list: async () => [{ uri: "svc://test-notes/n1", name: "n1", mimeType: "text/plain" }],
  },
  {
    name: "test_broken",
    uriTemplate: "svc://test-broken/{id}",
    title: "Broken",
    description: "Always fails.",
    read: async () => {
      throw new Error("the disk caught fire at /var/secret");
    },
  },
];

/** Test tools: what `run` receives is echoed back. */
const echo = async (_context: unknown, input: Record<string, unknown>) => ({ received: input });
const testTools: Tool[] = [
  defineTool({
    name: "test_read",
    title: "Read",
    description: "A read tool that does not declare working_attempt_id.",
    scope: "read",
    kind: "read",
    toolset: "solving",
    input: z.object({ problem: z.string() }),
    run: echo,
  }),
  defineTool({
    name: "test_read_declared",
    title: "Read, declared",
    description: "A read tool that declares working_attempt_id itself.",
    scope: "read",
    kind: "read",
    toolset: "solving",
    input: z.object({ working_attempt_id: z.string().optional() }),
    run: echo,
  }),
  defineTool({
    name: "test_write",
    title: "Write",
    description: "A write tool.",
    scope: "contribute",
    kind: "write",
    toolset: "solving",
    input: z.object({ attempt_id: z.string() }),
    run: echo,
  }),
  defineTool({
    name: "test_loose",
    title: "Loose",
    description: "A read tool whose schema accepts any extra field.",
    scope: "read",
    kind: "read",
    toolset: "solving",
    input: z.object({}).loose(),
    run: echo,
  }),
  defineTool({
    name: "test_crash",
    title: "Crash",
    description: "Fails unexpectedly.",
    scope: "read",
    kind: "read",
    toolset: "solving",
    input: z.object({}),
    run: async () => {
      throw new Error("connection to 10.0.0.7 reset");
    },
  }),
  defineTool({
    name: "test_hold",
    title: "Hold",
    description: "Answers once the test lets it go.",
    scope: "read",
    kind: "read",
    toolset: "solving",
    input: z.object({}),
    run: async () => {
      holding();
      await released;
      return { held: true };
    },
  }),
];

describeWithDatabase("the MCP adapter", () => {
  const db = useTestDatabase();
  const logged: Array<Record<string, unknown>> = [];
  let app: RunningApp;
  let token: string;

  beforeAll(async () => {
    await addUser(db.sql, { handle: "grace" });
    ({ token } = await issueToken(db.sql, "grace", ["contribute"]));
    const log = pino({ level: "error" }, { write: (line: string) => logged.push(JSON.parse(line)) });
    app = await startMcpApp({
      services: { ...testServices(db.sql), log },
      tools: testTools,
      resourceTemplates: templates,
    });
  });
  afterAll(() => app?.close());

  describe.each(clientLines)("resource reads with the $name", ({ connect }) => {
    let client: TestClient;
    beforeAll(async () => {
      client = await connect(app.url, token);
    });
    afterAll(() => client?.close());

    it("strips a trailing working_attempt_id before matching, echoes the URI as sent and reports the outcome", async () => {
      const uri = `svc://test-files/fil_1/docs/a%20b.md?working_attempt_id=${ATTEMPT}`;
      const [content, ...more] = await client.readResource(uri);
      expect(more).toEqual([]);
      expect(content).toEqual({
        uri,
        mimeType: "application/json",
        text: JSON.stringify({ file_id: "fil_1", path: "docs/a b.md" }),
        _meta: {
          content_hash: "sha256:x",
          working_attempt: { id: ATTEMPT, accepted: false, reason: "not_found" },
        },
      });
    });

    it("reports no working attempt without the parameter, and matches an empty {+path}", async () => {
      const [content] = await client.readResource("svc://test-files/fil_1/");
      expect(content).toEqual({
        uri: "svc://test-files/fil_1/",
        mimeType: "application/json",
        text: JSON.stringify({ file_id: "fil_1", path: "" }),
        _meta: { content_hash: "sha256:x" },
      });
    });
  });

  describe("resource reads", () => {
    let client: TestClient;
    beforeAll(async () => {
      client = await clientLines[0].connect(app.url, token);
    });
    afterAll(() => client?.close());

    it("lets the last of repeated working_attempt_id parameters count, the earlier ones ignored", async () => {
      const uri = `svc://test-notes/n1?working_attempt_id=att_zzzzzzzzzz&working_attempt_id=${ATTEMPT}`;
      const [content] = await client.readResource(uri);
      expect(content).toMatchObject({
        uri,
        _meta: { working_attempt: { id: ATTEMPT } },
      });
    });

    it.each([
      ["another parameter after it", `svc://test-notes/n1?working_attempt_id=${ATTEMPT}&page=2`],
      ["another spelling", `svc://test-notes/n1?Working_Attempt_Id=${ATTEMPT}`],
      ["an encoded name", `svc://test-notes/n1?working%5Fattempt%5Fid=${ATTEMPT}`],
    ])("counts only the last parameter under exactly that name (%s)", async (_case, uri) => {
      await expect(client.readResource(uri)).rejects.toMatchObject({
        code: -32602,
        data: { uri, error: { code: "not_found" } },
      });
    });

    it("refuses a working_attempt_id that is not an Attempt id, naming the URI", async () => {
      const uri = "svc://test-notes/n1?working_attempt_id=attempt-1";
      await expect(client.readResource(uri)).rejects.toMatchObject({
        code: -32602,
        message: expect.stringContaining(uri),
        data: { uri, error: { code: "invalid_input", field: "working_attempt_id" } },
      });
    });

    it("passes a template's own error through with the URI", async () => {
      const uri = "svc://test-notes/n2";
      await expect(client.readResource(uri)).rejects.toMatchObject({
        code: -32602,
        message: `${uri}: no note n2`,
        data: { uri, error: { code: "not_found", message: "no note n2" } },
      });
    });

    it("answers a failing template with an internal error naming the request, and logs what failed", async () => {
      const uri = "svc://test-broken/b1";
      const error = await client.readResource(uri).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: -32603, data: { uri, error: { code: "internal" } } });
      expect(JSON.stringify(error)).not.toContain("fire");
      const entry = logged.find((l) => l.uri === uri);
      expect(entry?.err).toMatchObject({ message: "the disk caught fire at /var/secret" });
      expect(String((error as Error).message)).toContain(String(entry?.reqId));
    });

    it("lists each template's resources and every template", async () => {
      expect(await client.listResources()).toEqual([
        expect.objectContaining({ uri: "svc://test-notes/n1", name: "n1", mimeType: "text/plain" }),
      ]);
      expect((await client.listResourceTemplates()).map((t) => t.uriTemplate)).toEqual(
        templates.map((t) => t.uriTemplate),
      );
    });
  });

  it("marks reads complete, private and never cached on 2026-07-28", async () => {
    const uri = `svc://test-notes/n1?working_attempt_id=${ATTEMPT}`;
    const { body } = await modernRpc(app.url, token, "resources/read", { uri });
    expect(body.result).toMatchObject({
      resultType: "complete",
      ttlMs: 0,
      cacheScope: "private",
      contents: [{ uri, text: "note one" }],
    });
  });

  describe("tool calls", () => {
    let client: TestClient;
    beforeAll(async () => {
      client = await clientLines[0].connect(app.url, token);
    });
    afterAll(() => client?.close());

    it("accepts working_attempt_id on a read tool, takes it off before run and reports the outcome", async () => {
      const result = await client.callTool("test_read", { problem: "p", working_attempt_id: ATTEMPT });
      expect(envelopeOf(result)).toEqual({
        received: { problem: "p" },
        working_attempt: { id: ATTEMPT, accepted: false, reason: "not_found" },
      });
    });

    it("passes working_attempt_id to a read tool that declares it", async () => {
      const result = await client.callTool("test_read_declared", { working_attempt_id: ATTEMPT });
      expect(envelopeOf(result)).toEqual({
        received: { working_attempt_id: ATTEMPT },
        working_attempt: { id: ATTEMPT, accepted: false, reason: "not_found" },
      });
    });

    it("refuses working_attempt_id on a write tool as an unknown field, naming the accepted ones", async () => {
      const result = await client.callTool("test_write", { attempt_id: "a", working_attempt_id: ATTEMPT });
      expect(result.isError).toBe(true);
      expect(envelopeOf(result)).toMatchObject({
        error: {
          code: "invalid_input",
          field: "working_attempt_id",
          message: expect.stringContaining("test_write accepts attempt_id"),
        },
      });
    });

    it("names a missing required field", async () => {
      const result = await client.callTool("test_read", {});
      expect(envelopeOf(result)).toMatchObject({
        error: { code: "invalid_input", field: "problem", issues: [{ field: "problem" }] },
      });
    });

    it("accepts extra fields when the tool's schema is loose", async () => {
      const result = await client.callTool("test_loose", { anything: 1 });
      expect(envelopeOf(result)).toEqual({ received: { anything: 1 } });
    });

    it("answers an unexpected exception with an internal tool error and logs it with the tool", async () => {
      const result = await client.callTool("test_crash");
      expect(result.isError).toBe(true);
      const envelope = envelopeOf(result);
      expect(envelope).toEqual({
        error: {
          code: "internal",
          message: expect.stringMatching(/the log has the details under request \S+/),
        },
      });
      expect(JSON.stringify(envelope)).not.toContain("10.0.0.7");
      expect(logged.find((l) => l.tool === "test_crash")?.err).toMatchObject({
        message: "connection to 10.0.0.7 reset",
      });
    });

    it("serves on when a 2025-era caller goes away before its answer, and logs no error", async () => {
      const caller = new AbortController();
      const gone = fetch(`${app.url}/mcp`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2025-06-18",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "test_hold" } }),
        signal: caller.signal,
      });
      await held;
      const errors = logged.length;
      caller.abort();
      await expect(gone).rejects.toThrow();
      letGo();
      expect(envelopeOf(await client.callTool("test_loose", { after: true }))).toEqual({
        received: { after: true },
      });
      expect(logged.slice(errors)).toEqual([]);
    });

    it("answers an unknown tool name with a protocol error", async () => {
      await expect(client.callTool("no_such_tool")).rejects.toThrow(/no_such_tool/);
    });
  });
});
