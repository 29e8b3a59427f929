import { HOSTED_PROVIDERS } from "@svc/app";
import type { AllowedAgent } from "@svc/schemas";
import type { EffectiveAgentConfig } from "../../core/services/hosted-reviewer.ts";

/** The one hosted provider (decisions.md). */
export const ANTHROPIC_PROVIDER = "anthropic";

/** The effort levels `output_config.effort` takes. */
export const AnthropicEffort = {
  low: "low",
  medium: "medium",
  high: "high",
  xhigh: "xhigh",
  max: "max",
} as const;
export type AnthropicEffort = (typeof AnthropicEffort)[keyof typeof AnthropicEffort];

/**
 * What an `allowed` entry gets when its config leaves a key out. `high` is the API's own default
 * effort, written down so the recorded configuration says what ran; 8192 output tokens leave a
 * judgment, its rationale and citations room without letting one seat spend much.
 */
export const ANTHROPIC_DEFAULTS = { effort: AnthropicEffort.high, max_tokens: 8192 } as const;

/** The effective configuration of an anthropic agent, as recorded on its assignment. */
export interface AnthropicAgentConfig {
  effort: AnthropicEffort;
  max_tokens: number;
}

/**
 * Resolves an `allowed` entry to the configuration the service will run and record: the
 * provider must be `anthropic`, its config keys only `effort` and `max_tokens` in range (rule 9,
 * the same check the linter makes), and absent keys take {@link ANTHROPIC_DEFAULTS}. Throws an
 * Error naming the problem otherwise; a linted protocol never trips it.
 */
export function resolveAnthropicAgent(allowed: AllowedAgent): EffectiveAgentConfig {
  if (allowed.provider !== ANTHROPIC_PROVIDER) {
    throw new Error(
      `hosted provider "${allowed.provider}" is not supported; this deployment runs "${ANTHROPIC_PROVIDER}" only`,
    );
  }
  const config = allowed.config ?? {};
  const problems = HOSTED_PROVIDERS.get(ANTHROPIC_PROVIDER)!.configProblems(config);
  if (problems.length > 0) {
    throw new Error(
      `anthropic config for model "${allowed.model}" is invalid: ${problems.map((p) => `${p.key}: ${p.message}`).join("; ")}`,
    );
  }
  const effective: AnthropicAgentConfig = {
    effort: (config.effort as AnthropicEffort | undefined) ?? ANTHROPIC_DEFAULTS.effort,
    max_tokens: (config.max_tokens as number | undefined) ?? ANTHROPIC_DEFAULTS.max_tokens,
  };
  return { provider: ANTHROPIC_PROVIDER, model: allowed.model, config: { ...effective } };
}
