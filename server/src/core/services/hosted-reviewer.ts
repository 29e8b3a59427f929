import type { AllowedAgent, Rubric, SkillRequirement } from "@svc/schemas";
import type { ReviewResponseInput } from "./review-response.ts";

/** The configuration an agent assignment records: the allowed entry with provider defaults resolved. */
export interface EffectiveAgentConfig {
  provider: string;
  model: string;
  config: Record<string, unknown>;
}

/** One item of a review bundle (spec 4.1): listed by reference, text of 16 KiB or less inlined. */
export interface BundleMaterial {
  kind: "artifact" | "stage_evidence" | "prior_node" | "statement" | "skill";
  key: string;
  filename: string | null;
  media_type: string;
  size_bytes: number;
  content_hash: string | null;
  resource_uri: string | null;
  /** The whole text when it is UTF-8 of 16 KiB or less. */
  text?: string;
  /** The first 400 characters of a larger text file. */
  preview?: string;
  truncated?: boolean;
  omitted_reason?: string;
}

/** What the service sends a hosted agent for one seat. */
export interface HostedReviewRequest {
  agent: EffectiveAgentConfig;
  node_title: string | null;
  rubric: Rubric;
  materials: BundleMaterial[];
  /** Skills supplied to agents automatically: SKILL.md text of each. */
  skills: Array<{ skill_version_id: string; requirement: SkillRequirement; content_md: string }>;
  /** The problems the previous reply had, when retrying after a refusal. */
  previous_problems: string[];
}

/** Invokes hosted agent reviewers; the deployment's providers behind one seam. */
export interface HostedReviewers {
  /** The allowed entry with the provider's defaults resolved; throws for an unsupported provider. */
  resolve(allowed: AllowedAgent): EffectiveAgentConfig;
  /**
   * Asks the agent for a review and parses its reply into a response the rubric then checks.
   * Throws when the provider cannot be reached or its reply cannot be parsed.
   */
  review(request: HostedReviewRequest): Promise<ReviewResponseInput>;
}
