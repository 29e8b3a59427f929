import { mkdirSync, mkdtempSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bwrapRuns, SANDBOX_UID } from "@svc/app";
import { describe, expect, it } from "vitest";
import { scriptJob } from "../../../app/test/sandbox/job-fixtures.ts";
import { localSandboxRunner } from "../../src/verification/local-sandbox-runner.ts";
import { prepareSandboxRunDirectory } from "../../src/verification/sandbox-run-directory.ts";

const asRoot = process.getuid?.() === 0;
const hasBwrap = bwrapRuns();
if (!hasBwrap && process.env.CI === "true") throw new Error("CI=true but bubblewrap does not run");

/** A pid no process has: above the kernel's pid_max (at most 2^22). */
const DEAD_PID = 2_000_000_000;

/**
 * evil/crash-leftovers: a run's directory holds the checker, the manifest, the artifacts and the
 * reference inputs (sealed ones included). Each is private, under the service's data directory,
 * and what a killed process left is removed when the service starts again.
 */
describe("sandbox run directories", () => {
  it("are private folders under the data directory, and a dead process's leftovers go at start-up", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "svc-data-"));
    const home = join(dataDir, "sandbox-runs");
    // What a kill -9 mid-run leaves: a dead process's folder with a run's files, sealed input included.
    const leftover = join(home, `p${DEAD_PID}`, "svc-bwrap-x1y2z3", "input", "reference", "sealed");
    mkdirSync(leftover, { recursive: true });
    writeFileSync(join(leftover, "instance.cnf"), "p cnf 3 2\n");
    // A live process's folder (our parent's) is not ours to touch; a stray file is left alone.
    mkdirSync(join(home, `p${process.ppid}`, "svc-bwrap-live"), { recursive: true });
    writeFileSync(join(home, "README"), "not a process folder");

    const mine = await prepareSandboxRunDirectory(dataDir, {});
    expect(mine).toBe(join(home, `p${process.pid}`));
    expect(readdirSync(home).sort()).toEqual(["README", `p${process.pid}`, `p${process.ppid}`].sort());
    const mode = asRoot ? 0o711 : 0o700;
    expect(statSync(home).mode & 0o777).toBe(mode);
    expect(statSync(mine).mode & 0o777).toBe(mode);
  });

  it.skipIf(!asRoot)(
    "run as root, moves them out of a data directory the sandbox uid cannot enter",
    async () => {
      const parent = mkdtempSync(join(tmpdir(), "svc-private-"));
      const dataDir = join(parent, "data");
      mkdirSync(dataDir, { mode: 0o700 });
      const rootHome = join(mkdtempSync(join(tmpdir(), "svc-runs-home-")), "sandbox-runs");
      const mine = await prepareSandboxRunDirectory(dataDir, {}, rootHome);
      expect(mine).toBe(join(rootHome, `p${process.pid}`));
      // SVC_SANDBOX_RUN_DIR is taken as it is.
      const chosen = join(parent, "chosen");
      expect(await prepareSandboxRunDirectory(dataDir, { SVC_SANDBOX_RUN_DIR: chosen }, rootHome)).toBe(
        join(chosen, `p${process.pid}`),
      );
    },
  );

  it.skipIf(!hasBwrap)("hold a running checker's files at mode 0700, and nothing once it ended", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "svc-data-"));
    const runDir = await prepareSandboxRunDirectory(dataDir, {});
    const runner = localSandboxRunner({ env: { SVC_SANDBOX: "bwrap" }, runDir });
    const job = scriptJob(
      [
        "import json, pathlib, time",
        "time.sleep(1.5)",
        'pathlib.Path("/output/result.json").write_text(json.dumps({"result": "verified", "summary": "ok"}))',
      ].join("\n"),
    );
    const running = runner.run(job, { backend: "bwrap", local_image: "/usr/bin/python3" });
    // Watch the run's directory while the checker sleeps: it is made, then handed to the sandbox's
    // user, so a look between the two sees root's; the look that counts is once it is handed over.
    const owner = asRoot ? SANDBOX_UID : process.getuid?.();
    let seen: { mode: number; uid: number } | undefined;
    const until = Date.now() + 10_000;
    while (seen?.uid !== owner && Date.now() < until) {
      const [name] = await readdir(runDir);
      if (name) {
        const info = await stat(join(runDir, name)).catch(() => undefined);
        if (info) seen = { mode: info.mode & 0o777, uid: info.uid };
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const outcome = await running;
    expect(outcome, JSON.stringify(outcome)).toMatchObject({ result: "verified" });
    expect(seen).toEqual({ mode: 0o700, uid: owner });
    // Warm run disks wait in the folder for the next runs until the runner closes (shutdown).
    await runner.close?.();
    expect(await readdir(runDir)).toEqual([]);
  });

  it("refuse a warm pool size that is not a whole number from 0 to 64, naming the variable", () => {
    for (const bad of ["-1", "two", "1.5", "65"]) {
      expect(() => localSandboxRunner({ env: { SVC_SANDBOX_POOL_SIZE: bad } })).toThrow(
        `SVC_SANDBOX_POOL_SIZE=${bad} is not valid: use a whole number from 0 to 64`,
      );
    }
    expect(() => localSandboxRunner({ env: { SVC_SANDBOX_POOL_SIZE: "0" } })).not.toThrow();
  });
});
