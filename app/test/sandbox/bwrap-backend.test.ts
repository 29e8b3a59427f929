import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createBwrapBackend } from "../../src/sandbox/bwrap-backend.ts";
import { bwrapRuns } from "../../src/sandbox/detect-sandbox.ts";
import { scriptJob } from "./job-fixtures.ts";
import { describeSandbox } from "./sandbox-suite.ts";

describeSandbox("bwrap", async () =>
  bwrapRuns()
    ? { backend: createBwrapBackend(), binding: { backend: "bwrap", local_image: "/usr/bin/python3" } }
    : "bwrap does not run here (apt-get install bubblewrap)",
);

describe("bwrap warm sandboxes", () => {
  it.runIf(bwrapRuns())(
    "a checker in a warm sandbox has what a fresh python3 script.py has: empty stdin, its own __main__, argv, environment",
    async () => {
      const backend = createBwrapBackend({ diskPoolSize: 1 });
      try {
        const binding = { backend: "bwrap" as const, local_image: "/usr/bin/python3" };
        const probe = [
          "import json, os, sys",
          "seen = {",
          '  "stdin": sys.stdin.read(),',
          '  "main": sys.modules["__main__"].__dict__ is globals(),',
          '  "name": __name__,',
          '  "argv0": sys.argv[0],',
          '  "path0": sys.path[0],',
          '  "env": sorted(os.environ),',
          '  "cwd": os.getcwd(),',
          '  "supervisor_gone": "read_run" not in globals(),',
          "}",
          'ok = seen == {"stdin": "", "main": True, "name": "__main__", "argv0": "/input/checker/checker.py",',
          '  "path0": "/input/checker", "env": ["HOME", "LANG", "PATH", "TMPDIR"], "cwd": "/output", "supervisor_gone": True}',
          "print(json.dumps(seen))",
          'json.dump({"result": "verified" if ok else "refuted"}, open("/output/result.json", "w"))',
        ].join("\n");
        // The first run's sandbox is started on demand, the second's was waiting in the pool.
        for (let i = 0; i < 2; i++) {
          const outcome = await backend.run(scriptJob(`${probe}\n`), binding);
          expect(outcome.result, Buffer.from(outcome.log.bytes).toString()).toBe("verified");
          await backend.settled();
        }
      } finally {
        await backend.close();
      }
    },
  );

  it.runIf(bwrapRuns())(
    "evil/leaked-disks: kills, unmounts and removes every sandbox it started, warm or used, when closed",
    async () => {
      // Enter, never list: the sandbox uid passes through to its run's disk (as in the service).
      const tempDir = mkdtempSync(join(tmpdir(), "svc-disk-pool-test-"));
      chmodSync(tempDir, 0o711);
      const backend = createBwrapBackend({ tempDir, diskPoolSize: 2 });
      try {
        const binding = { backend: "bwrap" as const, local_image: "/usr/bin/python3" };
        const ok = `import json\nopen("/output/result.json", "w").write(json.dumps({"result": "verified"}))\n`;
        for (let i = 0; i < 3; i++)
          expect((await backend.run(scriptJob(ok), binding)).result).toBe("verified");
        await backend.close?.();
        expect(readdirSync(tempDir)).toEqual([]);
        expect(readFileSync("/proc/self/mounts", "utf8")).not.toContain(tempDir);
      } finally {
        await backend.close?.();
        rmSync(tempDir, { recursive: true, force: true });
      }
    },
  );
});
