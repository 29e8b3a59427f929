import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { CliIo } from "../../src/cli/cli-io.ts";
import { runCli } from "../../src/cli/main.ts";
import { credentialsPath, readStoredCredential, resolveCredential } from "../../src/client/credentials.ts";

let home: string;
const saved = { XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME, SVC_TOKEN: process.env.SVC_TOKEN };
const quiet: CliIo = { stdout: () => {}, stderr: () => {}, color: false };

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "svc-home-"));
  process.env.XDG_CONFIG_HOME = home;
  delete process.env.SVC_TOKEN;
});

afterEach(() => {
  rmSync(home, { recursive: true, force: true });
  for (const [key, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
});

describe("svc login and logout", () => {
  it("stores a token readable by its owner only, and logout forgets it", async () => {
    expect(
      await runCli(["login", "--token", "svc_secret", "--server", "http://127.0.0.1:9999/"], quiet),
    ).toBe(0);
    const path = credentialsPath();
    expect(path).toBe(join(home, "svc", "credentials.json"));
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(await readStoredCredential()).toMatchObject({
      server: "http://127.0.0.1:9999",
      token: "svc_secret",
    });

    expect(await runCli(["logout"], quiet)).toBe(0);
    expect(await readStoredCredential()).toBeNull();
  });

  it("fails a --mcp sign-in when the service cannot be reached, and stores nothing", async () => {
    let stderr = "";
    const io: CliIo = {
      ...quiet,
      stderr: (text) => {
        stderr += text;
      },
    };
    expect(await runCli(["login", "--mcp", "--server", "http://127.0.0.1:9"], io)).toBe(1);
    expect(stderr).toContain("svc login:");
    expect(await readStoredCredential()).toBeNull();
  });
});

describe("resolveCredential", () => {
  it("prefers --server, then SVC_BASE_URL, then the stored server; SVC_TOKEN over the stored token", async () => {
    await runCli(["login", "--token", "stored", "--server", "http://stored.example"], quiet);
    expect(await resolveCredential({})).toEqual({
      server: "http://stored.example",
      token: "stored",
      source: "stored",
    });
    const env = { XDG_CONFIG_HOME: home, SVC_BASE_URL: "http://env.example", SVC_TOKEN: "from-env" };
    expect(await resolveCredential({}, env)).toEqual({
      server: "http://env.example",
      token: "from-env",
      source: "env",
    });
    expect((await resolveCredential({ server: "http://flag.example" }, env)).server).toBe(
      "http://flag.example",
    );
  });

  it("falls back to the default local address with no credential", async () => {
    expect(await resolveCredential({}, { XDG_CONFIG_HOME: home })).toEqual({
      server: "http://127.0.0.1:8787",
      token: null,
      source: "none",
    });
  });
});
