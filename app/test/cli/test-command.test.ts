import { spawn } from "node:child_process";
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { scaffoldPackage } from "../../src/cli/scaffold-package.ts";
import { bwrapRuns } from "../../src/sandbox/detect-sandbox.ts";
import { svcWith, writePackage } from "./support-run.ts";

const available = bwrapRuns();
if (!available && process.env.CI === "true")
  throw new Error("bwrap is required in CI (apt-get install bubblewrap)");
const env = { ...process.env, SVC_SANDBOX: "bwrap" };
const bin = new URL("../../bin/svc.js", import.meta.url).pathname;
const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function scaffold(checker?: string) {
  const files = scaffoldPackage({ slug: "isqrt", campaign: false });
  if (checker !== undefined) files["checker.py"] = checker;
  const pkg = writePackage(files);
  cleanups.push(pkg.remove);
  return pkg.dir;
}

const FORK_BOMB = "import os\nwhile True:\n    os.fork()\n";

describe.skipIf(!available)("svc test (bwrap)", () => {
  it("1. passes the package svc init scaffolds: both fixtures give their expected result", async () => {
    const run = await svcWith({ env }, ["test", scaffold()]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^sandbox: bwrap/m);
    expect(run.stdout).toContain("pass check_answer/right_answer: expected verified, actual verified");
    expect(run.stdout).toContain("pass check_answer/wrong_answer: expected refuted, actual refuted");
    expect(run.stdout).toContain("2 of 2 fixtures");
  });

  it("2. reports a fork-bomb checker inconclusive within its limits and exits 1", async () => {
    const started = Date.now();
    const run = await svcWith({ env }, ["test", scaffold(FORK_BOMB), "--json"]);
    expect(run.code).toBe(1);
    const out = JSON.parse(run.stdout);
    expect(out.ok).toBe(false);
    const [stage] = out.stages;
    expect(stage).toMatchObject({
      stage_key: "check_answer",
      status: "failed",
      fixtures_total: 2,
      fixtures_passed: 0,
    });
    for (const result of stage.results) {
      expect(result).toMatchObject({ actual: "inconclusive", passed: false, backend: "bwrap" });
      expect(["processes", "timeout"]).toContain(result.limit);
    }
    expect(stage.failures.map((f: { fixture_key: string }) => f.fixture_key)).toEqual([
      "right_answer",
      "wrong_answer",
    ]);
    // The scaffold's limit is 10 s per fixture.
    expect(Date.now() - started).toBeLessThan(25_000);
  });

  it("2b. prints the checker's own traceback under a failed fixture, readable and in --json", async () => {
    const broken =
      'import sys\nprint("reading the answer")\nraise RuntimeError("the checker broke on purpose")\n';
    const dir = scaffold(broken);
    const readable = await svcWith({ env }, ["test", dir]);
    expect(readable.code).toBe(1);
    expect(readable.stdout).toContain("FAIL check_answer/right_answer: expected verified, actual");
    expect(readable.stdout).toContain("checker output (last 4 KiB):");
    expect(readable.stdout).toMatch(/\| Traceback \(most recent call last\):/);
    expect(readable.stdout).toContain("| RuntimeError: the checker broke on purpose");
    expect(readable.stdout).toContain("| reading the answer");

    const run = await svcWith({ env }, ["test", dir, "--json"]);
    const [stage] = JSON.parse(run.stdout).stages;
    for (const list of [stage.failures, stage.results]) {
      for (const entry of list)
        expect(entry.log_tail).toContain("RuntimeError: the checker broke on purpose");
    }
  });

  it("4. the svc process exits once its fixtures ran, leaving no sandbox, disk or run folder behind", async () => {
    // The warm pool refills after each run; a sandbox waiting in it must neither keep the process
    // alive (a `svc test` that never returns) nor outlive it (a mounted disk left in TMPDIR).
    const tmp = mkdtempSync(join(tmpdir(), "svc-test-exit-"));
    chmodSync(tmp, 0o1777); // as /tmp is: the sandbox's own user passes through it
    cleanups.push(() => rmSync(tmp, { recursive: true, force: true }));
    const child = spawn(process.execPath, [bin, "test", scaffold()], {
      env: { ...env, TMPDIR: tmp },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    const hung = setTimeout(() => child.kill("SIGKILL"), 25_000);
    const code = await exited;
    clearTimeout(hung);
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
    expect(stdout).toContain("2 of 2 fixtures");
    expect(readdirSync(tmp).filter((name) => name.startsWith("svc-"))).toEqual([]);
    expect(readFileSync("/proc/self/mounts", "utf8")).not.toContain(tmp);
  });

  it("5. Ctrl-C in the middle of a run leaves no sandbox, disk or run folder behind", async () => {
    // Node ends on SIGINT without its exit listeners: the pools' cleanup must run on the signal too.
    const tmp = mkdtempSync(join(tmpdir(), "svc-test-sigint-"));
    chmodSync(tmp, 0o1777);
    cleanups.push(() => rmSync(tmp, { recursive: true, force: true }));
    const child = spawn(process.execPath, [bin, "test", scaffold("import time\ntime.sleep(60)\n")], {
      env: { ...env, TMPDIR: tmp },
      stdio: ["ignore", "ignore", "pipe"],
    });
    const exited = new Promise<NodeJS.Signals | number | null>((resolve) =>
      child.once("exit", (code, signal) => resolve(signal ?? code)),
    );
    const mounted = () => readFileSync("/proc/self/mounts", "utf8").includes(tmp);
    // A warm sandbox's disk is mounted before its run begins; interrupt once one is.
    for (let waited = 0; !mounted() && waited < 20_000; waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(mounted()).toBe(true);
    child.kill("SIGINT");
    const hung = setTimeout(() => child.kill("SIGKILL"), 20_000);
    const ended = await exited;
    clearTimeout(hung);
    expect(ended).toBe("SIGINT");
    expect(readdirSync(tmp).filter((name) => name.startsWith("svc-"))).toEqual([]);
    expect(mounted()).toBe(false);
  });

  it("3. stops at lint errors without running anything", async () => {
    const dir = scaffold();
    const contract = JSON.parse(readFileSync(join(dir, "verifier-contract.json"), "utf8"));
    contract.conformance_fixtures[0].inputs.artifacts[0].content_hash = `sha256:${"0".repeat(64)}`;
    const { writeFileSync } = await import("node:fs");
    writeFileSync(join(dir, "verifier-contract.json"), JSON.stringify(contract));
    const run = await svcWith({ env }, ["test", dir]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("no fixture was run");
  });
});

describe("svc test without a sandbox", () => {
  it("reports script fixtures inconclusive (unbound runtime) and exits 1", async () => {
    const run = await svcWith(
      { env: { ...process.env, SVC_SANDBOX: "docker", DOCKER_HOST: "unix:///nonexistent.sock" } },
      ["test", scaffold()],
    );
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^sandbox: none/m);
    expect(run.stdout).toContain("expected verified, actual inconclusive");
  });
});

describe("svc verifier build --dry-run", () => {
  it("prints the buildx build, digest read and anonymous pull without running them", async () => {
    const pkg = writePackage({ "checker/Dockerfile": "FROM scratch\n", "verifier-contract.json": "{}" });
    cleanups.push(pkg.remove);
    // A cloud builder named by the environment (spec 4.2's second choice): a dry run names it
    // without creating it, whatever this machine's Docker has, so the printed plan is fixed.
    const cloud = { SVC_CLOUD_BUILDER: "me/builder", DOCKER_USERNAME: "me", DOCKER_PAT: "dckr_pat_test" };
    const run = await svcWith({ env: cloud }, [
      "verifier",
      "build",
      join(pkg.dir, "checker"),
      "--repository",
      "ghcr.io/me/checker",
      "--stage",
      "check",
      "--limits",
      "memory_mb=256,vcpu=2",
      "--dry-run",
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /docker buildx build .*--platform linux\/amd64 --tag ghcr.io\/me\/checker:\S+ --push /,
    );
    expect(run.stdout).toContain("docker buildx imagetools inspect ghcr.io/me/checker:");
    expect(run.stdout).toContain("pull --platform linux/amd64 'ghcr.io/me/checker@<digest>'");
    expect(run.stdout).toContain('stage "check" with limits {"memory_mb":256,"vcpu":2}');
  });

  it("refuses a directory without a Dockerfile and malformed limits", async () => {
    const pkg = writePackage({ "checker/README": "x" });
    cleanups.push(pkg.remove);
    expect((await svcWith({}, ["verifier", "build", join(pkg.dir, "checker"), "--dry-run"])).code).toBe(2);
  });
});
