import type { IncomingHttpHeaders } from "node:http";
import {
  type AuthInfo,
  type JSONRPCResultResponse,
  McpServer,
  PROTOCOL_VERSION_META_KEY,
} from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { legacyJsonCalls } from "../../../src/edges/mcp/legacy-json-calls.ts";

/**
 * A real McpServer with a tool that waits until released (and records whether it was cancelled),
 * one that answers at once with who called, and one that needs a scope the caller lacks.
 */
function serverWithTools() {
  let started: () => void = () => {};
  const running = new Promise<void>((resolve) => {
    started = resolve;
  });
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const cancelled: boolean[] = [];
  const server = new McpServer({ name: "test", version: "1.0.0" });
  server.registerTool("wait", { inputSchema: z.object({}) }, async (_args, context) => {
    started();
    await released;
    cancelled.push(context.mcpReq.signal.aborted);
    return { content: [{ type: "text", text: "done" }] };
  });
  server.registerTool("echo", { inputSchema: z.object({ text: z.string() }) }, async ({ text }, context) => ({
    content: [{ type: "text", text: `${text} for ${context.http?.authInfo?.clientId}` }],
  }));
  server.registerTool(
    "write",
    {
      inputSchema: z.object({}),
      scopeChallenge: ({ authInfo }) =>
        authInfo?.scopes.includes("contribute") ? undefined : { scopes: ["read", "contribute"] },
    },
    async () => ({ content: [{ type: "text", text: "written" }] }),
  );
  return { server, running, release, cancelled };
}

const HEADERS: IncomingHttpHeaders = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2025-06-18",
};

const auth = (clientId: string): AuthInfo => ({ token: "t", clientId, scopes: ["read"] });

/** A 2025-era tools/call as the SDK client sends it. */
const toolCall = (name: string, args: Record<string, unknown>, id: number | string = 7) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: args },
});

const textOf = (answer: unknown) =>
  ((answer as JSONRPCResultResponse).result as { content: Array<{ text: string }> }).content[0]!.text;

describe("legacyJsonCalls", () => {
  it("answers 2025-era calls from one server, each caller under its own id, even when two send the same", async () => {
    const { server } = serverWithTools();
    const calls = await legacyJsonCalls(server);
    const [alice, bob] = [auth("alice"), auth("bob")];
    const first = await calls.takes(HEADERS, toolCall("echo", { text: "one" }), alice);
    const second = await calls.takes(HEADERS, toolCall("echo", { text: "two" }), bob);
    expect(first).toBeDefined();
    expect(second).toBeDefined();
    const answers = await Promise.all([calls.call(first!, alice).answer, calls.call(second!, bob).answer]);
    expect(answers.map((answer) => answer?.id)).toEqual([7, 7]);
    expect(answers.map(textOf)).toEqual(["one for alice", "two for bob"]);
    // A protocol error (an unknown method) is the SDK's own answer, under the caller's id.
    const unknown = { jsonrpc: "2.0", id: "x", method: "no/such" };
    const refused = await calls.call((await calls.takes(HEADERS, unknown, alice))!, alice).answer;
    expect(refused).toMatchObject({ id: "x", error: { code: -32601 } });
    await calls.close();
  });

  it("cancels a call whose caller went away: the handler's signal is aborted and the server serves on", async () => {
    const { server, running, release, cancelled } = serverWithTools();
    const calls = await legacyJsonCalls(server);
    const caller = auth("alice");
    const exchange = calls.call((await calls.takes(HEADERS, toolCall("wait", {}), caller))!, caller);
    await running;
    exchange.cancel();
    expect(await exchange.answer).toBeUndefined();
    release();
    const next = await calls.call(
      (await calls.takes(HEADERS, toolCall("echo", { text: "after" }), caller))!,
      caller,
    ).answer;
    expect(textOf(next)).toBe("after for alice");
    expect(cancelled).toEqual([true]);
    await calls.close();
  });

  it("leaves to the SDK's entry what it does not answer the way the SDK's transport would", async () => {
    const { server } = serverWithTools();
    const calls = await legacyJsonCalls(server);
    const caller = auth("alice");
    const left = async (headers: IncomingHttpHeaders, body: unknown) =>
      (await calls.takes(headers, body, caller)) === undefined;
    const initialize = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "c", version: "1" } },
    };
    expect(await left(HEADERS, initialize)).toBe(true);
    expect(await left(HEADERS, { jsonrpc: "2.0", id: 1, method: "events/stream", params: {} })).toBe(true);
    expect(await left(HEADERS, { jsonrpc: "2.0", method: "notifications/initialized" })).toBe(true);
    expect(await left(HEADERS, [toolCall("echo", { text: "a" })])).toBe(true);
    expect(await left(HEADERS, { ...toolCall("echo", { text: "a" }), jsonrpc: "1.0" })).toBe(true);
    expect(await left({ ...HEADERS, accept: "application/json" }, toolCall("echo", { text: "a" }))).toBe(
      true,
    );
    expect(await left({ ...HEADERS, "content-type": "text/plain" }, toolCall("echo", { text: "a" }))).toBe(
      true,
    );
    expect(
      await left({ ...HEADERS, "mcp-protocol-version": "1999-01-01" }, toolCall("echo", { text: "a" })),
    ).toBe(true);
    // A 2026-07-28 request (the modern envelope's version header) is the modern path's.
    expect(
      await left({ ...HEADERS, "mcp-protocol-version": "2026-07-28" }, toolCall("echo", { text: "a" })),
    ).toBe(true);
    // A body claiming the modern envelope (params._meta naming a version), with or without the header.
    const claimed = {
      ...toolCall("echo", { text: "a" }),
      params: {
        name: "echo",
        arguments: { text: "a" },
        _meta: { [PROTOCOL_VERSION_META_KEY]: "2026-07-28" },
      },
    };
    expect(await left(HEADERS, claimed)).toBe(true);
    const { "mcp-protocol-version": __, ...unversioned } = HEADERS;
    expect(await left(unversioned, claimed)).toBe(true);
    // A call needing a scope the caller lacks: the SDK's transport answers the 403 step-up challenge.
    expect(await left(HEADERS, toolCall("write", {}))).toBe(true);
    // And what it does answer: the call as sent, without the protocol version header too.
    const { "mcp-protocol-version": _, ...withoutVersion } = HEADERS;
    expect(await left(withoutVersion, toolCall("echo", { text: "a" }))).toBe(false);
    expect(await left(HEADERS, toolCall("write", {}))).toBe(true);
    await calls.close();
  });
});
