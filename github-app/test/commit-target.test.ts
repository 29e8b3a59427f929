import { describe, expect, it } from "vitest";
import { commitTarget } from "../src/commit-target.ts";
import { ConfigError, readAppConfig, serviceTokenFor } from "../src/read-app-config.ts";

const repository = {
  name: "problems",
  owner: { login: "acme" },
  clone_url: "https://github.com/acme/problems.git",
  html_url: "https://github.com/acme/problems",
  default_branch: "main",
};
const sha = "a".repeat(40);

describe("commitTarget", () => {
  it("fetches a pull request's head through the base repository's pull ref", () => {
    expect(
      commitTarget("pull_request", { repository, pull_request: { number: 7, head: { sha } } }),
    ).toMatchObject({
      owner: "acme",
      repo: "problems",
      ref: "refs/pull/7/head",
      sha,
      onDefaultBranch: false,
    });
  });

  it("publishes pushes to the default branch only, and ignores deletions and tags", () => {
    const push = (ref: string, after = sha, deleted = false) =>
      commitTarget("push", { repository, ref, after, deleted });
    expect(push("refs/heads/main")).toMatchObject({ ref: "refs/heads/main", onDefaultBranch: true });
    expect(push("refs/heads/topic")).toMatchObject({ onDefaultBranch: false });
    expect(push("refs/tags/v1")).toBeNull();
    expect(push("refs/heads/main", "0".repeat(40), true)).toBeNull();
  });

  it("reads check suites and runs, by branch or by pull request", () => {
    const suite = { head_branch: null, head_sha: sha, pull_requests: [{ number: 3 }] };
    expect(commitTarget("check_suite", { repository, check_suite: suite })).toMatchObject({
      ref: "refs/pull/3/head",
    });
    expect(
      commitTarget("check_run", {
        repository,
        check_run: { check_suite: { ...suite, head_branch: "main" } },
      }),
    ).toMatchObject({ ref: "refs/heads/main", onDefaultBranch: true });
    expect(
      commitTarget("check_suite", { repository, check_suite: { ...suite, pull_requests: [] } }),
    ).toBeNull();
    expect(commitTarget("issues", { repository })).toBeNull();
  });
});

describe("readAppConfig", () => {
  const base = { APP_ID: "12", PRIVATE_KEY: "-----BEGIN\\nKEY-----", WEBHOOK_SECRET: "s" };

  it("names what is missing", () => {
    expect(() => readAppConfig({})).toThrow(
      new ConfigError("set APP_ID, WEBHOOK_SECRET, PRIVATE_KEY or PRIVATE_KEY_PATH (see docs/github-app.md)"),
    );
  });

  it("reads the API URL, the service and per-installation credentials", () => {
    const config = readAppConfig({
      ...base,
      GHE_HOST: "ghe.example",
      SVC_BASE_URL: "https://svc.example/",
      SVC_TOKEN: "t",
      SVC_TOKENS: '{"7": "t7"}',
    });
    expect(config).toMatchObject({
      appId: 12,
      privateKey: "-----BEGIN\nKEY-----",
      githubApiUrl: "https://ghe.example/api/v3",
      serviceUrl: "https://svc.example",
    });
    expect(serviceTokenFor(config, 7)).toBe("t7");
    expect(serviceTokenFor(config, 8)).toBe("t");
    expect(readAppConfig({ ...base, GITHUB_API_URL: "http://127.0.0.1:9/" }).githubApiUrl).toBe(
      "http://127.0.0.1:9",
    );
    expect(readAppConfig(base)).toMatchObject({
      githubApiUrl: "https://api.github.com",
      serviceUrl: null,
      serviceToken: null,
    });
  });

  it("refuses malformed values", () => {
    expect(() => readAppConfig({ ...base, APP_ID: "x" })).toThrow(ConfigError);
    expect(() => readAppConfig({ ...base, SVC_TOKENS: "[" })).toThrow(/SVC_TOKENS/);
    expect(() => readAppConfig({ ...base, SVC_TOKENS: '{"1": 2}' })).toThrow(/SVC_TOKENS/);
  });
});
