import type { ReviewResponseInput } from "../../core/services/review-response.ts";
import { REVIEW_TOOL_NAME } from "./review-reply-schema.ts";

/** The content blocks of a Messages API reply this parser reads; others are passed over. */
export type ReplyBlock =
  | { type: "tool_use"; name: string; input: unknown }
  | { type: "text"; text: string }
  | { type: string };

/**
 * Turns an agent's reply into a submission: the input of its `submit_review` tool use, else a
 * JSON object in its text (the whole text, a fenced block, or the outermost braces). Only the
 * four review fields are taken; their values are passed on as given, for the rubric check to
 * judge (and its problems to go back to the agent on a retry). Throws when neither holds an
 * object with a `response`.
 */
export function parseReviewReply(content: readonly ReplyBlock[]): ReviewResponseInput {
  for (const block of content) {
    if (block.type === "tool_use" && "name" in block && block.name === REVIEW_TOOL_NAME) {
      const input = (block as { input: unknown }).input;
      if (isReply(input)) return pick(input);
      throw new Error(`the agent called ${REVIEW_TOOL_NAME} without a response object in its input`);
    }
  }
  const text = content
    .filter((block): block is { type: "text"; text: string } => block.type === "text" && "text" in block)
    .map((block) => block.text)
    .join("\n");
  for (const candidate of jsonCandidates(text)) {
    try {
      const parsed: unknown = JSON.parse(candidate);
      if (isReply(parsed)) return pick(parsed);
    } catch {
      // Not JSON; try the next candidate.
    }
  }
  throw new Error(
    `the agent's reply had no ${REVIEW_TOOL_NAME} tool use and no JSON object with a response in its text`,
  );
}

function isReply(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === "object" && value !== null && !Array.isArray(value) && Object.hasOwn(value, "response")
  );
}

// The values are not checked here: checkReviewResponse judges them, whatever their types.
function pick(reply: Record<string, unknown>): ReviewResponseInput {
  return {
    response: reply.response,
    rationale_md: (reply.rationale_md ?? null) as string | null,
    citations: reply.citations ?? [],
    confidence: (reply.confidence ?? null) as number | null,
  };
}

function jsonCandidates(text: string): string[] {
  const candidates = [text.trim()];
  for (const match of text.matchAll(/```(?:json)?\s*\n([\s\S]*?)```/g)) candidates.push(match[1]!.trim());
  const first = text.indexOf("{");
  const last = text.lastIndexOf("}");
  if (first !== -1 && last > first) candidates.push(text.slice(first, last + 1));
  return candidates;
}
