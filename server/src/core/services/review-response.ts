/** A citation in a review response (decisions.md): where the reviewer's claim can be checked. */
export interface Citation {
  /** A resource URI, URL or package path, 1 to 500 characters. */
  source: string;
  /** At most 200 characters: a line, page or JSON Pointer within the source. */
  locator?: string;
  /** At most 2000 characters quoted from the source. */
  quote?: string;
}

/** The agent or tool that assisted a human reviewer, as declared; recorded, never verified. */
export interface AssistanceDeclaration {
  provider: string;
  model: string;
  config?: Record<string, unknown> | null;
}

/** What a reviewer (human, or a hosted agent's parsed reply) submits for one assignment. */
export interface ReviewResponseInput {
  response: unknown;
  rationale_md?: string | null;
  citations?: unknown;
  confidence?: number | null;
  assistance?: AssistanceDeclaration | null;
}

/**
 * One way a response fails its rubric. A refusal lists every problem at once, each naming the
 * field (a JSON Pointer into the submitted input, e.g. `/response/verdict`, `/citations/0/source`)
 * and what would fix it.
 */
export interface ResponseProblem {
  path: string;
  message: string;
}
