import { McpServer } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { legacyJsonCalls } from "../../../src/edges/mcp/legacy-json-calls.ts";

/** A real McpServer with one tool that waits until released, and one that answers at once. */
function serverWithTools() {
  let started: () => void = () => {};
  const running = new Promise<void>((resolve) => {
    started = resolve;
  });
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const server = new McpServer({ name: "test", version: "1.0.0" });
  server.registerTool("wait", { inputSchema: z.object({}) }, async () => {
    started();
    await released;
    return { content: [{ type: "text", text: "done" }] };
  });
  server.registerTool("echo", { inputSchema: z.object({ text: z.string() }) }, async ({ text }) => ({
    content: [{ type: "text", text }],
  }));
  return { server, running, release };
}

/** A 2025-era tools/call as the SDK client sends it, with the caller's abort signal. */
function toolCall(name: string, args: Record<string, unknown>, signal?: AbortSignal) {
  const body = { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name, arguments: args } };
  const request = new Request("http://127.0.0.1/mcp", {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2025-06-18",
    },
    body: JSON.stringify(body),
    ...(signal && { signal }),
  });
  return { request, options: { parsedBody: body } };
}

describe("legacyJsonCalls", () => {
  it("answers a 2025-era call with one JSON body, and the server can serve again", async () => {
    const { server } = serverWithTools();
    const errors: Error[] = [];
    const calls = legacyJsonCalls(
      () => server,
      (error) => errors.push(error),
    );
    for (const text of ["first", "second"]) {
      const { request, options } = toolCall("echo", { text });
      const response = await calls(request, options);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toMatch(/^application\/json/);
      const message = (await response.json()) as { id: number; result: { content: Array<{ text: string }> } };
      expect(message.id).toBe(7);
      expect(message.result.content[0]!.text).toBe(text);
    }
    expect(errors).toEqual([]);
  });

  it("answers 499 when the caller goes away mid-call, instead of awaiting an answer that never comes", async () => {
    const { server, running, release } = serverWithTools();
    const calls = legacyJsonCalls(
      () => server,
      () => {},
    );
    const caller = new AbortController();
    const { request, options } = toolCall("wait", {}, caller.signal);
    const answered = calls(request, options);
    await running;
    caller.abort();
    // Without the race this await never ends: the tool is still waiting and nobody reads the answer.
    const response = await answered;
    expect(response.status).toBe(499);
    // The exchange was torn down: the server is free for the next request.
    expect(server.isConnected()).toBe(false);
    release();
    const next = toolCall("echo", { text: "after" });
    expect((await calls(next.request, next.options)).status).toBe(200);
  });
});
