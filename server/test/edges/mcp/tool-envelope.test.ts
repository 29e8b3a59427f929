import type { JSONRPCResponse, JSONRPCResultResponse } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import { answerJson, toolEnvelope } from "../../../src/edges/mcp/tool-envelope.ts";

/** The answer as the SDK hands it back: a copy of the result whose structuredContent copies the body's fields. */
function answerOf(result: ReturnType<typeof toolEnvelope>, id: number | string = 3): JSONRPCResultResponse {
  return {
    jsonrpc: "2.0",
    id,
    result: {
      ...result,
      content: result.content.map((item) => ({ ...item })),
      structuredContent: { ...(result.structuredContent as Record<string, unknown>) },
    },
  } as JSONRPCResultResponse;
}

describe("toolEnvelope and answerJson", () => {
  it("sends the body encoded once: the same JSON as encoding the whole answer", () => {
    const caller = {};
    const body = { problem: { slug: "p", title: 'a "quoted" title' }, hint: "start", n: [1, 2] };
    const answer = answerOf(toolEnvelope(body, false, caller), "x");
    const json = answerJson(answer, caller);
    expect(json).toBeDefined();
    expect(JSON.parse(json!)).toEqual(JSON.parse(JSON.stringify(answer)));
    expect(JSON.parse(json!).result.structuredContent).toEqual(
      JSON.parse((answer.result.content as Array<{ text: string }>)[0]!.text),
    );
    // Once: a second answer to the same caller is sent as it is.
    expect(answerJson(answer, caller)).toBeUndefined();
  });

  it("keeps an error's isError beside the spliced structuredContent", () => {
    const caller = {};
    const answer = answerOf(toolEnvelope({ error: { code: "not_found", message: "no" } }, true, caller));
    expect(JSON.parse(answerJson(answer, caller)!)).toEqual(JSON.parse(JSON.stringify(answer)));
  });

  it("leaves alone an answer the SDK made or changed", () => {
    const caller = {};
    const result = toolEnvelope({ a: 1 }, false, caller);
    // The SDK wrapped the structured content, or answered with a protocol error.
    const wrapped = { jsonrpc: "2.0", id: 1, result: { ...result, structuredContent: { result: { a: 1 } } } };
    expect(answerJson(wrapped as JSONRPCResponse, caller)).toBeUndefined();
    toolEnvelope({ a: 1 }, false, caller);
    const refused = { jsonrpc: "2.0", id: 1, error: { code: -32602, message: "bad" } };
    expect(answerJson(refused as JSONRPCResponse, caller)).toBeUndefined();
    // No envelope recorded for this caller: nothing to splice.
    expect(answerJson(answerOf(result), {})).toBeUndefined();
  });
});
