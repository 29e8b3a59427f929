import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  FAKE_API_KEY,
  type FakeMessagesApi,
  reply,
  startFakeMessagesApi,
} from "../../support/fake-messages-api.ts";

let api: FakeMessagesApi;
beforeAll(async () => {
  api = await startFakeMessagesApi();
});
afterAll(() => api.close());

const BODY = { model: "claude-opus-4-7", max_tokens: 256, messages: [{ role: "user", content: "hi" }] };

async function post(headers: Record<string, string>, body: unknown = BODY, path = "/v1/messages") {
  const response = await fetch(`${api.baseURL}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as ApiBody };
}

/** The fields of a message or error body these tests read. */
interface ApiBody {
  error: { type: string; message: string };
  content: unknown[];
}

const AUTH = { "x-api-key": FAKE_API_KEY, "anthropic-version": "2023-06-01" };

describe("the fake Messages API", () => {
  it("answers a scripted tool use in the real message shape", async () => {
    api.reply(reply.toolUse({ response: { verdict: "accept" } }));
    const { status, body } = await post(AUTH);
    expect(status).toBe(200);
    expect(body).toMatchObject({
      id: expect.stringMatching(/^msg_/),
      type: "message",
      role: "assistant",
      model: "claude-opus-4-7",
      stop_reason: "tool_use",
      stop_sequence: null,
      content: [
        {
          type: "tool_use",
          id: expect.stringMatching(/^toolu_/),
          name: "submit_review",
          input: { response: { verdict: "accept" } },
        },
      ],
      usage: { input_tokens: expect.any(Number), output_tokens: expect.any(Number) },
    });
  });

  it("answers scripted errors with the real error body", async () => {
    api.reply(reply.error(429, "slow down"));
    expect(await post(AUTH)).toEqual({
      status: 429,
      body: {
        type: "error",
        error: { type: "rate_limit_error", message: "slow down" },
        request_id: expect.any(String),
      },
    });
  });

  it("refuses as the real API does: wrong key, no version header, bad body, unknown path", async () => {
    expect((await post({ ...AUTH, "x-api-key": "nope" })).body.error.type).toBe("authentication_error");
    expect((await post({ authorization: `Bearer ${FAKE_API_KEY}` })).body.error).toEqual({
      type: "invalid_request_error",
      message: "anthropic-version: header is required",
    });
    expect((await post(AUTH, "{not json")).status).toBe(400);
    expect((await post(AUTH, { model: "m", messages: [] })).body.error.message).toBe(
      "max_tokens: Field required",
    );
    expect((await post(AUTH, BODY, "/v1/complete")).status).toBe(404);
  });

  it("uses the default reply once the queue is empty, and records every request", async () => {
    const before = api.requests.length;
    expect((await post(AUTH)).body.error.message).toMatch(/no reply scripted/);
    api.replyByDefault(reply.text("always"));
    expect((await post(AUTH)).body.content).toEqual([{ type: "text", text: "always", citations: null }]);
    expect(api.requests.length).toBe(before + 2);
    expect(api.requests.at(-1)!.body.max_tokens).toBe(256);
  });
});
