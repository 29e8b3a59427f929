import type { HostedReviewers } from "../../core/services/hosted-reviewer.ts";
import { createAnthropicHostedReviewers } from "./anthropic-hosted-reviewers.ts";
import { unavailableHostedReviewers } from "./unavailable-hosted-reviewers.ts";

/**
 * The deployment's hosted reviewers from its environment: `ANTHROPIC_API_KEY` turns the
 * `anthropic` provider on, `SVC_ANTHROPIC_BASE_URL` points it elsewhere (default: the SDK's).
 * Without a key every agent seat fails to run, as {@link unavailableHostedReviewers} says.
 */
export function hostedReviewersFromEnv(
  env: Readonly<Record<string, string | undefined>> = process.env,
): HostedReviewers {
  const apiKey = env.ANTHROPIC_API_KEY?.trim();
  if (apiKey === undefined || apiKey === "") return unavailableHostedReviewers;
  const baseURL = env.SVC_ANTHROPIC_BASE_URL?.trim();
  return createAnthropicHostedReviewers({ apiKey, baseURL: baseURL === "" ? undefined : baseURL });
}
