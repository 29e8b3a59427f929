import { SignupMode } from "@svc/schemas";

/** How the service reaches GitHub for Sign in with GitHub (docs/operations.md). */
export interface GitHubSignInSettings {
  /** The OAuth App's or GitHub App's client id. */
  clientId: string;
  clientSecret: string;
  /** Where people authorize: https://github.com, or a GitHub Enterprise Server's address. */
  webUrl: string;
  /** GitHub's REST API: https://api.github.com, or `<server>/api/v3` on GitHub Enterprise Server. */
  apiUrl: string;
  /** Whether a GitHub user unknown to the service may join. */
  signup: SignupMode;
}

/**
 * Sign in with GitHub's settings from the environment, or undefined when SVC_GITHUB_CLIENT_ID is
 * unset (the sign-in page then offers only operators' one-time links). A half-configured or
 * malformed setting stops the start with a message naming it.
 */
export function githubSignInFromEnv(
  env: Readonly<Record<string, string | undefined>>,
): GitHubSignInSettings | undefined {
  const clientId = env.SVC_GITHUB_CLIENT_ID?.trim();
  const clientSecret = env.SVC_GITHUB_CLIENT_SECRET?.trim();
  if (!clientId) {
    if (clientSecret)
      throw new Error("SVC_GITHUB_CLIENT_SECRET is set without SVC_GITHUB_CLIENT_ID: set both, or neither");
    return undefined;
  }
  if (!clientSecret)
    throw new Error("SVC_GITHUB_CLIENT_ID is set without SVC_GITHUB_CLIENT_SECRET: set both, or neither");
  const signup = env.SVC_SIGNUP?.trim() || SignupMode.invite;
  if (!Object.hasOwn(SignupMode, signup)) {
    throw new Error(
      `SVC_SIGNUP is "${signup}": use open (anyone with a GitHub account joins) or invite (the default)`,
    );
  }
  return {
    clientId,
    clientSecret,
    webUrl: httpUrl("SVC_GITHUB_URL", env.SVC_GITHUB_URL, "https://github.com"),
    apiUrl: httpUrl("SVC_GITHUB_API_URL", env.SVC_GITHUB_API_URL, "https://api.github.com"),
    signup: signup as SignupMode,
  };
}

function httpUrl(name: string, value: string | undefined, fallback: string): string {
  const text = value?.trim() || fallback;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`${name} is "${text}", which is not a URL: give an https address such as ${fallback}`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new Error(`${name} is "${text}": give an https address such as ${fallback}`);
  }
  return text.replace(/\/+$/, "");
}
