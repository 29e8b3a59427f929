import { execFileSync, spawn, spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { CliIo } from "../../src/cli/cli-io.ts";
import { runCli } from "../../src/cli/main.ts";
import { campaignFiles } from "../client/support/campaign-files.ts";

const fixtures = new URL("../fixtures/lint/", import.meta.url).pathname;
const bin = new URL("../../bin/svc.js", import.meta.url).pathname;
const temps: string[] = [];

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "svc-cli-"));
  temps.push(dir);
  return dir;
}

async function svc(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const io: CliIo = {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    color: false,
  };
  const code = await runCli(argv, io);
  return { code, stdout, stderr };
}

afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("svc init", () => {
  it("scaffolds a problem package that lints clean with a plan", async () => {
    const dir = join(tempDir(), "p");
    expect((await svc("init", dir)).code).toBe(0);
    const lint = await svc("lint", dir, "--json");
    expect(lint.code).toBe(0);
    const result = JSON.parse(lint.stdout);
    expect(Object.keys(result)).toEqual(["ok", "errors", "notes", "plan", "plan_hash"]);
    expect(result.ok).toBe(true);
    expect(result.errors).toEqual([]);
    expect(result.plan.problems).toHaveLength(1);
    expect(result.plan.problems[0].slug).toBe("p");
    expect(Object.keys(result.plan.verifier_implementations)).toHaveLength(1);
    expect(result.plan_hash).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it("scaffolds a campaign whose problem inherits the shared contract", async () => {
    const dir = join(tempDir(), "Some Campaign");
    expect((await svc("init", dir, "--campaign")).code).toBe(0);
    const result = JSON.parse((await svc("lint", dir, "--json")).stdout);
    expect(result.ok).toBe(true);
    expect(result.plan.campaign.slug).toBe("some-campaign-campaign");
    expect(result.plan.problems[0].dir).toBe("problems/some-campaign");
    expect(result.plan.problems[0].verifier_contract).toMatch(/^sha256:/);
  });

  it("requires the artifact its checker reads: no text-only submission the checker cannot check", async () => {
    const dir = join(tempDir(), "p");
    await svc("init", dir);
    const contract = JSON.parse(readFileSync(join(dir, "verifier-contract.json"), "utf8"));
    const checker = readFileSync(join(dir, "checker.py"), "utf8");
    const read = [...checker.matchAll(/a\["role"\] == "(\w+)"/g)].map((m) => m[1]);
    expect(read).toEqual(["answer"]);
    const required = contract.submission_requirements.required_artifacts.map((a: { role: string }) => a.role);
    for (const role of read) expect(required).toContain(role);
    expect(contract.submission_requirements.accepts_text_only).toBe(false);
  });

  it("refuses a directory that is not empty, with exit code 2", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "keep.txt"), "mine");
    const run = await svc("init", dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("not empty");
    expect(readFileSync(join(dir, "keep.txt"), "utf8")).toBe("mine");
  });
});

describe("svc lint", () => {
  it("exits 1 and prints a report grouped by file, each error with its code and fix", async () => {
    const run = await svc("lint", join(fixtures, "unsupported-runtime-image-tag"));
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("verifier-contract.json\n");
    expect(run.stdout).toMatch(/error \/stages\/0\/implementation \[unsupported_runtime\] .*pin|digest/);
    expect(run.stdout).toContain("failed: 1 error");
    expect(run.stdout).not.toContain("\u001b[");
  });

  it("names the rule number of a protocol rule violation", async () => {
    const run = await svc("lint", join(fixtures, "rule-05-cycle"), "--json");
    expect(run.code).toBe(1);
    const result = JSON.parse(run.stdout);
    expect(result.ok).toBe(false);
    expect(result.plan).toBeNull();
    expect(result.plan_hash).toBeNull();
    expect(result.errors.map((e: { rule?: number }) => e.rule)).toContain(5);
  });

  it("--fix writes fixture hashes and sizes, then lints clean", async () => {
    const dir = join(tempDir(), "p");
    await svc("init", dir);
    writeFileSync(join(dir, "fixtures/wrong-answer.txt"), "999\n");
    const broken = JSON.parse((await svc("lint", dir, "--json")).stdout);
    expect(broken.errors.map((e: { code: string }) => e.code)).toEqual(["hash_mismatch", "hash_mismatch"]);

    const fixed = await svc("lint", dir, "--fix", "--json");
    expect(fixed.code).toBe(0);
    const contract = JSON.parse(readFileSync(join(dir, "verifier-contract.json"), "utf8"));
    expect(contract.conformance_fixtures[1].inputs.artifacts[0].size_bytes).toBe(4);
  });

  it("--fix rewrites any hash that is not the file's, a placeholder the schema refuses included", async () => {
    const dir = join(tempDir(), "p");
    await svc("init", dir);
    const path = join(dir, "verifier-contract.json");
    const scaffolded = JSON.parse(readFileSync(path, "utf8"));
    const edited = structuredClone(scaffolded);
    edited.conformance_fixtures[0].inputs.artifacts[0].content_hash = "sha256:0";
    edited.conformance_fixtures[1].inputs.artifacts[0].content_hash = `sha256:${"f".repeat(64)}`;
    edited.conformance_fixtures[1].inputs.artifacts[0].size_bytes = 0;
    writeFileSync(path, JSON.stringify(edited));
    expect((await svc("lint", dir)).code).toBe(1);

    const fixed = await svc("lint", dir, "--fix", "--json");
    expect(fixed.code).toBe(0);
    expect(JSON.parse(fixed.stdout).ok).toBe(true);
    expect(JSON.parse(readFileSync(path, "utf8")).conformance_fixtures).toEqual(
      scaffolded.conformance_fixtures,
    );
  });

  it("--fix never rewrites a link binding's hash", async () => {
    const dir = tempDir();
    cpSync(join(fixtures, "valid-linked-binding"), dir, { recursive: true });
    const linkPath = join(dir, "reference/instance.link.json");
    const link = JSON.parse(readFileSync(linkPath, "utf8"));
    link.content_hash = `sha256:${"0".repeat(64)}`;
    const before = `${JSON.stringify(link)}\n`;
    writeFileSync(linkPath, before);
    const run = await svc("lint", dir, "--fix", "--json");
    expect(run.code).toBe(0);
    expect(readFileSync(linkPath, "utf8")).toBe(before);
  });

  it("exits 2 on a missing directory or a missing argument", async () => {
    expect((await svc("lint", "/nonexistent/package")).code).toBe(2);
    expect((await svc("lint")).code).toBe(2);
    expect((await svc("no-such-command")).code).toBe(2);
  });
});

describe("svc --help", () => {
  it("lists every command of spec 4.2", async () => {
    const run = await svc("--help");
    expect(run.code).toBe(0);
    for (const name of [
      "lint",
      "init",
      "test",
      "upload",
      "draft",
      "publish",
      "verify",
      "login",
      "whoami",
      "logout",
      "verifier",
    ]) {
      expect(run.stdout).toMatch(new RegExp(`^  ${name}\\b`, "m"));
    }
  });

  it("is what the README promises: every command built, none said to be missing", async () => {
    const readme = readFileSync(new URL("../../../README.md", import.meta.url), "utf8");
    expect(readme).not.toMatch(/not (?:yet )?built|not built yet/i);
    const help = (await svc("--help")).stdout;
    for (const [, name] of readme.matchAll(/^npx svc ([a-z]+)\b/gm)) {
      expect(help).toMatch(new RegExp(`^  ${name}\\b`, "m"));
    }
  });

  it.each([["login"], ["login", "--mcp"]])(
    "svc %s against no service exits 1 saying why",
    async (...argv) => {
      const run = await svc(...argv, "--server", "http://127.0.0.1:9");
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/^svc login: /);
    },
  );
});

describe("the svc binary", () => {
  it("ends quietly with exit 0 when its reader closes the pipe (svc lint --json | head)", async () => {
    // A campaign whose --json plan is far larger than a pipe's buffer, so a write meets the closed pipe.
    const dir = tempDir();
    for (const [path, text] of Object.entries(campaignFiles(300))) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    const child = spawn(process.execPath, [bin, "lint", dir, "--json"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    // Like head: read the first bytes, then go away.
    child.stdout.once("data", () => child.stdout.destroy());
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(stderr).toBe("");
    expect(code).toBe(0);
  });

  it("runs end to end as a user runs it", () => {
    const dir = join(tempDir(), "p");
    execFileSync(process.execPath, [bin, "init", dir]);
    const run = spawnSync(process.execPath, [bin, "lint", dir, "--json"], { encoding: "utf8" });
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout).ok).toBe(true);
    const broken = spawnSync(process.execPath, [bin, "lint", join(fixtures, "missing-file-statement")], {
      encoding: "utf8",
    });
    expect(broken.status).toBe(1);
  });

  it("keeps V8's code cache of the bundle per command in a private directory, and replaces a damaged one", () => {
    // vitest's global setup built the bundle from these sources, so the binary runs it.
    const dir = join(tempDir(), "p");
    execFileSync(process.execPath, [bin, "init", dir]);
    const cacheHome = tempDir();
    const { NODE_COMPILE_CACHE: _dir, NODE_DISABLE_COMPILE_CACHE: _off, ...inherited } = process.env;
    const env = { ...inherited, XDG_CACHE_HOME: cacheHome };
    const lint = () => spawnSync(process.execPath, [bin, "lint", dir, "--json"], { encoding: "utf8", env });
    const cacheDir = join(cacheHome, "svc", "compile-cache");
    const lintCaches = () => readdirSync(cacheDir).filter((name) => name.endsWith("-lint.v8cache"));

    const first = lint();
    expect(first.status).toBe(0);
    expect(lintCaches()).toHaveLength(1);
    const cache = join(cacheDir, lintCaches()[0]!);
    expect(statSync(cacheDir).mode & 0o777).toBe(0o700);
    expect(statSync(cache).mode & 0o777).toBe(0o600);
    expect(statSync(cache).size).toBeGreaterThan(10_000);

    const cached = lint();
    expect(cached.status).toBe(0);
    expect(cached.stdout).toBe(first.stdout);

    writeFileSync(cache, "not a code cache");
    const damaged = lint();
    expect(damaged.status).toBe(0);
    expect(damaged.stdout).toBe(first.stdout);
    expect(statSync(cache).size).toBeGreaterThan(10_000);

    rmSync(cacheDir, { recursive: true });
    const off = spawnSync(process.execPath, [bin, "lint", dir, "--json"], {
      encoding: "utf8",
      env: { ...env, NODE_DISABLE_COMPILE_CACHE: "1" },
    });
    expect(off.stdout).toBe(first.stdout);
    expect(existsSync(cacheDir)).toBe(false);
  });
});
