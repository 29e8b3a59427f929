import { ProbotOctokit } from "probot";

/**
 * probot's Octokit, with two changes:
 *
 * - Authentication requests (`POST /app/installations/{id}/access_tokens`) go to the configured
 *   API base URL. probot hands its auth strategy a bare `request` without the base URL, so an
 *   explicit `octokit.auth({type: "installation"})` (the App needs the token to fetch over Git)
 *   would always ask api.github.com; without it, the strategy uses the Octokit's own `request`,
 *   which carries `baseUrl` (GitHub Enterprise Server, or a local server in tests).
 * - Rate-limit throttling can be switched off (it spaces writes about a second apart).
 */
export function appOctokit(options: { throttle: boolean }): typeof ProbotOctokit {
  return ProbotOctokit.defaults((instance: Record<string, unknown>) => {
    const auth = instance.auth as Record<string, unknown> | undefined;
    const { request: _bare, ...own } = auth ?? {};
    return {
      ...instance,
      ...(auth ? { auth: own } : {}),
      throttle: { ...(instance.throttle as object), enabled: options.throttle },
    };
  }) as typeof ProbotOctokit;
}
