import type { AllowedAgent } from "@svc/schemas";
import type { EffectiveAgentConfig, HostedReviewers } from "../../core/services/hosted-reviewer.ts";

/**
 * The hosted reviewers of a deployment with no provider configured: every invocation fails, so an
 * agent seat stays open until its node's deadline and the process ends `reviewers_unavailable`.
 */
export const unavailableHostedReviewers: HostedReviewers = {
  resolve(allowed: AllowedAgent): EffectiveAgentConfig {
    return { provider: allowed.provider, model: allowed.model, config: { ...allowed.config } };
  },
  review(request) {
    return Promise.reject(
      new Error(`no hosted provider "${request.agent.provider}" is configured on this deployment`),
    );
  },
};
