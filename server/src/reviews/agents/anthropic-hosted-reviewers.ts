import Anthropic, { APIConnectionError, APIError } from "@anthropic-ai/sdk";
import type { AllowedAgent } from "@svc/schemas";
import type { HostedReviewers, HostedReviewRequest } from "../../core/services/hosted-reviewer.ts";
import type { ReviewResponseInput } from "../../core/services/review-response.ts";
import { buildReviewPrompt } from "./build-review-prompt.ts";
import { parseReviewReply, type ReplyBlock } from "./parse-review-reply.ts";
import { type AnthropicAgentConfig, resolveAnthropicAgent } from "./resolve-anthropic-agent.ts";
import { REVIEW_TOOL_NAME, reviewReplySchema } from "./review-reply-schema.ts";

export interface AnthropicHostedReviewersOptions {
  apiKey: string;
  /** The Messages API's base address; undefined: the SDK's default. */
  baseURL?: string | undefined;
  /** Retries the SDK makes on connection errors, 408, 409, 429 and 5xx; default the SDK's (2). */
  maxRetries?: number | undefined;
  /** Per-request timeout in milliseconds; default the SDK's (10 minutes). */
  timeoutMs?: number | undefined;
}

/**
 * Hosted agent reviewers on Anthropic's Messages API through `@anthropic-ai/sdk`. Each review
 * is one request: the prompt of {@link buildReviewPrompt}, the effective `max_tokens`, `effort`
 * as `output_config.effort`, and a `submit_review` tool whose input schema carries the rubric's
 * response_schema, forced through `tool_choice` so the reply is structured. No extended
 * thinking is asked for: the API does not combine it with a forced tool. Every failure (no
 * connection, an API error, a reply with nothing to parse) throws an Error naming it; the
 * engine counts those against the seat's retries.
 */
export function createAnthropicHostedReviewers(options: AnthropicHostedReviewersOptions): HostedReviewers {
  const client = new Anthropic({
    apiKey: options.apiKey,
    ...(options.baseURL === undefined ? {} : { baseURL: options.baseURL }),
    ...(options.maxRetries === undefined ? {} : { maxRetries: options.maxRetries }),
    ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs }),
  });
  return {
    resolve: (allowed: AllowedAgent) => resolveAnthropicAgent(allowed),
    async review(request: HostedReviewRequest): Promise<ReviewResponseInput> {
      // Re-resolving checks the recorded configuration again and fills any default it lacks.
      const agent = resolveAnthropicAgent({ ...request.agent, config: request.agent.config });
      const config = agent.config as unknown as AnthropicAgentConfig;
      const prompt = buildReviewPrompt(request);
      let message: Anthropic.Message;
      try {
        message = await client.messages.create({
          model: agent.model,
          max_tokens: config.max_tokens,
          output_config: { effort: config.effort },
          system: prompt.system,
          messages: [{ role: "user", content: prompt.user }],
          tools: [
            {
              name: REVIEW_TOOL_NAME,
              description:
                "Hand in your review: the response the rubric asks for, your rationale, citations and confidence.",
              input_schema: reviewReplySchema(request.rubric) as Anthropic.Tool.InputSchema,
            },
          ],
          tool_choice: { type: "tool", name: REVIEW_TOOL_NAME, disable_parallel_tool_use: true },
        });
      } catch (error) {
        throw describeFailure(error, client.baseURL);
      }
      if (message.stop_reason === "refusal") {
        throw new Error(`anthropic model "${agent.model}" refused to review (stop_reason refusal)`);
      }
      try {
        return parseReviewReply(message.content as ReplyBlock[]);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        throw new Error(
          `anthropic reply ${message.id} could not be parsed (stop_reason ${message.stop_reason}): ${reason}`,
          {
            cause: error,
          },
        );
      }
    },
  };
}

function describeFailure(error: unknown, baseURL: string): Error {
  if (error instanceof APIConnectionError) {
    return new Error(`anthropic is unreachable at ${baseURL}: ${error.message}`, { cause: error });
  }
  if (error instanceof APIError) {
    const body = error.error as { error?: { type?: unknown; message?: unknown } } | undefined;
    const type = typeof body?.error?.type === "string" ? body.error.type : "error";
    const detail = typeof body?.error?.message === "string" ? body.error.message : error.message;
    return new Error(`anthropic answered ${error.status ?? "?"} ${type}: ${detail}`, { cause: error });
  }
  return error instanceof Error ? error : new Error(String(error));
}
