import type { Rubric } from "@svc/schemas";

/** The name of the tool the agent must call to hand in its review. */
export const REVIEW_TOOL_NAME = "submit_review";

/**
 * The input schema of the `submit_review` tool: the rubric's response_schema under `response`,
 * beside rationale_md, citations and confidence, all four asked for (spec 2.1: every completed
 * review returns them). The response_schema's `$defs` (and legacy `definitions`) move to the
 * top level so its local `#/$defs/...` references still resolve once it is nested; its
 * `$schema` is dropped, as only a schema's root may carry one.
 */
export function reviewReplySchema(rubric: Rubric): Record<string, unknown> {
  const { $schema: _, $defs, definitions, ...response } = rubric.response_schema;
  return {
    type: "object",
    properties: {
      response,
      rationale_md: {
        type: "string",
        description:
          rubric.rationale === "required"
            ? "Markdown explaining the judgment; required, must not be blank."
            : "Markdown explaining the judgment.",
      },
      citations: {
        type: "array",
        minItems: rubric.citations.min_items,
        description: "Where the judgment can be checked: a material's resource URI, a URL or a package path.",
        items: {
          type: "object",
          properties: {
            source: { type: "string", minLength: 1, maxLength: 500 },
            locator: {
              type: "string",
              maxLength: 200,
              description: "A line, page or JSON Pointer within the source.",
            },
            quote: { type: "string", maxLength: 2000, description: "Text quoted from the source." },
          },
          required: ["source"],
          additionalProperties: false,
        },
      },
      confidence: { type: "number", minimum: 0, maximum: 1, description: "How sure you are, from 0 to 1." },
    },
    required: ["response", "rationale_md", "citations", "confidence"],
    additionalProperties: false,
    ...($defs === undefined ? {} : { $defs }),
    ...(definitions === undefined ? {} : { definitions }),
  };
}
