import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createAnthropicHostedReviewers } from "../../../src/reviews/agents/anthropic-hosted-reviewers.ts";
import { hostedReviewersFromEnv } from "../../../src/reviews/agents/hosted-reviewers-from-env.ts";
import { unavailableHostedReviewers } from "../../../src/reviews/agents/unavailable-hosted-reviewers.ts";
import { checkReviewResponse } from "../../../src/reviews/check-review-response.ts";
import {
  FAKE_API_KEY,
  type FakeMessagesApi,
  reply,
  startFakeMessagesApi,
  testHostedReviewers,
} from "../../support/fake-messages-api.ts";
import { GOOD_REPLY, RUBRIC, reviewRequest } from "./review-request-fixture.ts";

let api: FakeMessagesApi;
beforeAll(async () => {
  api = await startFakeMessagesApi();
});
afterAll(() => api.close());
beforeEach(() => {
  api.requests.length = 0;
});

describe("anthropic hosted reviewers through the real SDK", () => {
  it("sends the model, max_tokens, effort, the forced submit_review tool and the prompt", async () => {
    api.reply(reply.toolUse(GOOD_REPLY));
    await testHostedReviewers(api.baseURL).review(reviewRequest());

    expect(api.requests).toHaveLength(1);
    const [request] = api.requests;
    expect(request!.method).toBe("POST");
    expect(request!.path).toBe("/v1/messages");
    expect(request!.headers.authorization).toBe(`Bearer ${FAKE_API_KEY}`);
    expect(request!.headers["anthropic-version"]).toEqual(expect.any(String));
    const body = request!.body;
    expect(body).toMatchObject({
      model: "claude-opus-4-7",
      max_tokens: 2048,
      output_config: { effort: "medium" },
      tool_choice: { type: "tool", name: "submit_review", disable_parallel_tool_use: true },
    });
    expect(body).not.toHaveProperty("thinking");
    expect(body.system).toMatch(/never an instruction/);
    const tool = body.tools?.[0] as { name: string; input_schema: { properties: Record<string, unknown> } };
    expect(tool.name).toBe("submit_review");
    const { $schema: _, $defs, ...response } = RUBRIC.response_schema;
    expect(tool.input_schema).toMatchObject({
      type: "object",
      required: ["response", "rationale_md", "citations", "confidence"],
      properties: { response, citations: { minItems: 1 }, confidence: { minimum: 0, maximum: 1 } },
      $defs,
    });
    expect(tool.input_schema.properties.response).not.toHaveProperty("$schema");
    const user = body.messages[0]!;
    expect(user.role).toBe("user");
    expect(user.content).toContain(RUBRIC.instructions_md);
    expect(user.content).toContain("Lemma 1 holds by induction.");
    expect(user.content).toContain("PASS 1\nPASS 2");
  });

  it("sends the resolved defaults when the recorded config has none", async () => {
    api.reply(reply.toolUse(GOOD_REPLY));
    await testHostedReviewers(api.baseURL).review(
      reviewRequest({ agent: { provider: "anthropic", model: "claude-haiku-4-5", config: {} } }),
    );
    expect(api.requests[0]!.body).toMatchObject({
      model: "claude-haiku-4-5",
      max_tokens: 8192,
      output_config: { effort: "high" },
    });
  });

  it("returns the tool input as a response the rubric check accepts", async () => {
    api.reply(reply.toolUse(GOOD_REPLY));
    const parsed = await testHostedReviewers(api.baseURL).review(reviewRequest());
    expect(parsed).toEqual(GOOD_REPLY);
    const node = { rubric: RUBRIC, reviewers: null } as Parameters<typeof checkReviewResponse>[0];
    expect(checkReviewResponse(node, parsed)).toEqual([]);
  });

  it("falls back to a JSON object in a text reply", async () => {
    api.reply(reply.text(`Here is my review:\n\`\`\`json\n${JSON.stringify(GOOD_REPLY)}\n\`\`\``));
    expect(await testHostedReviewers(api.baseURL).review(reviewRequest())).toEqual(GOOD_REPLY);
  });

  it("sends the previous problems on a retry", async () => {
    api.reply(reply.toolUse(GOOD_REPLY));
    await testHostedReviewers(api.baseURL).review(
      reviewRequest({ previous_problems: ["/citations: the rubric requires at least 1 citation"] }),
    );
    expect(api.requests[0]!.body.messages[0]!.content).toContain(
      "- /citations: the rubric requires at least 1 citation",
    );
  });

  it("throws on a reply it cannot parse", async () => {
    api.reply(reply.text("Looks good to me."));
    await expect(testHostedReviewers(api.baseURL).review(reviewRequest())).rejects.toThrow(
      /anthropic reply msg_\w+ could not be parsed \(stop_reason end_turn\)/,
    );
  });

  it("throws on a refusal", async () => {
    api.reply(reply.text("I can't help with that.", { stop_reason: "refusal" }));
    await expect(testHostedReviewers(api.baseURL).review(reviewRequest())).rejects.toThrow(
      /refused to review/,
    );
  });

  it("throws on an HTTP error, naming the status and the error type", async () => {
    api.reply(reply.error(529, "Overloaded"));
    await expect(testHostedReviewers(api.baseURL).review(reviewRequest())).rejects.toThrow(
      "anthropic answered 529 overloaded_error: Overloaded",
    );
    api.reply(reply.error(400, "max_tokens: too large for this model"));
    await expect(testHostedReviewers(api.baseURL).review(reviewRequest())).rejects.toThrow(
      "anthropic answered 400 invalid_request_error: max_tokens: too large for this model",
    );
  });

  it("retries a server error when asked to, then succeeds", async () => {
    api.reply(reply.error(529), reply.toolUse(GOOD_REPLY));
    const reviewers = createAnthropicHostedReviewers({
      apiKey: FAKE_API_KEY,
      baseURL: api.baseURL,
      maxRetries: 1,
    });
    expect(await reviewers.review(reviewRequest())).toEqual(GOOD_REPLY);
    expect(api.requests).toHaveLength(2);
  });

  it("throws on a wrong API key with the API's authentication error", async () => {
    const reviewers = createAnthropicHostedReviewers({
      apiKey: "sk-wrong",
      baseURL: api.baseURL,
      maxRetries: 0,
    });
    await expect(reviewers.review(reviewRequest())).rejects.toThrow(
      /anthropic answered 401 authentication_error/,
    );
  });

  it("throws when the provider cannot be reached", async () => {
    const closed = await startFakeMessagesApi();
    await closed.close();
    await expect(testHostedReviewers(closed.baseURL).review(reviewRequest())).rejects.toThrow(
      `anthropic is unreachable at ${closed.baseURL}`,
    );
  });

  it("refuses to review for an unsupported provider without calling anyone", async () => {
    const request = reviewRequest({ agent: { provider: "openai", model: "gpt", config: {} } });
    await expect(testHostedReviewers(api.baseURL).review(request)).rejects.toThrow(/not supported/);
    expect(api.requests).toHaveLength(0);
  });
});

describe("hostedReviewersFromEnv", () => {
  it("has no hosted reviewers without ANTHROPIC_API_KEY", () => {
    expect(hostedReviewersFromEnv({})).toBe(unavailableHostedReviewers);
    expect(hostedReviewersFromEnv({ ANTHROPIC_API_KEY: " ", SVC_ANTHROPIC_BASE_URL: api.baseURL })).toBe(
      unavailableHostedReviewers,
    );
  });

  it("reaches the provider at SVC_ANTHROPIC_BASE_URL with the key", async () => {
    api.reply(reply.toolUse(GOOD_REPLY));
    const reviewers = hostedReviewersFromEnv({
      ANTHROPIC_API_KEY: FAKE_API_KEY,
      SVC_ANTHROPIC_BASE_URL: api.baseURL,
    });
    expect(reviewers.resolve({ provider: "anthropic", model: "m", config: {} }).config).toEqual({
      effort: "high",
      max_tokens: 8192,
    });
    expect(await reviewers.review(reviewRequest())).toEqual(GOOD_REPLY);
    expect(api.requests[0]!.headers.authorization).toBe(`Bearer ${FAKE_API_KEY}`);
  });
});
